-- Each wrk thread cycles its connections through the paths listed in the file given after `--`,
-- then one JSON line reports the run (latencies in microseconds).
local paths = {}
local next_index = 1
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("thread_number", threads)
end

function init(args)
  for line in io.lines(args[1]) do
    if line ~= "" then table.insert(paths, line) end
  end
  wrk.headers["Accept-Encoding"] = args[2]
  -- Threads start at different places in the list, so the mix is in flight from the first second.
  next_index = ((thread_number or 1) - 1) * 7 % #paths + 1
end

function request()
  local path = paths[next_index]
  next_index = next_index % #paths + 1
  return wrk.format("GET", path)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "duration_us": %d, "p50": %d, "p90": %d, "p99": %d, "max": %d, ' ..
    '"errors": {"connect": %d, "read": %d, "write": %d, "status": %d, "timeout": %d}}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.max, e.connect, e.read, e.write, e.status, e.timeout))
end
