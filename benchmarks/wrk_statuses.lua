-- Like wrk_paths.lua, and it also counts the answers by status and, from the latency histogram, the share of
-- requests that took longer than SLOW_US.
local SLOW_US = 10 * 1000 * 1000
local paths = {}
local next_index = 1
local threads = {}
statuses = {}  -- a global: done() reads each thread's copy with thread:get

function setup(thread)
  table.insert(threads, thread)
  thread:set("thread_number", #threads)
end

function init(args)
  for line in io.lines(args[1]) do
    if line ~= "" then table.insert(paths, line) end
  end
  wrk.headers["Accept-Encoding"] = args[2]
  next_index = ((thread_number or 1) - 1) * 7 % #paths + 1
end

function request()
  local path = paths[next_index]
  next_index = next_index % #paths + 1
  return wrk.format("GET", path)
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

-- The share of requests slower than `limit_us`, by bisecting on the percentiles (each call scans the histogram).
local function share_over(latency, limit_us)
  if latency.max <= limit_us then return 0 end
  local low, high = 0, 100
  for _ = 1, 40 do
    local mid = (low + high) / 2
    if latency:percentile(mid) > limit_us then high = mid else low = mid end
  end
  return (100 - high) / 100
end

function done(summary, latency, requests)
  local counts = {}
  for _, thread in ipairs(threads) do
    local seen = thread:get("statuses")
    for status, n in pairs(seen or {}) do counts[status] = (counts[status] or 0) + n end
  end
  local parts = {}
  for status, n in pairs(counts) do table.insert(parts, string.format('"%d": %d', status, n)) end
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "duration_us": %d, "p50": %d, "p90": %d, "p99": %d, "p999": %d, "max": %d, ' ..
    '"share_over": %.8f, "statuses": {%s}, ' ..
    '"errors": {"connect": %d, "read": %d, "write": %d, "status": %d, "timeout": %d}}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency:percentile(99.9), latency.max, share_over(latency, SLOW_US), table.concat(parts, ", "),
    e.connect, e.read, e.write, e.status, e.timeout))
end
