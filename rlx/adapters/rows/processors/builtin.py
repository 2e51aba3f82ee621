"""The processors this explorer ships, in the order they register (on a tied claim the earlier one wins)."""

from rlx.adapters.rows.processors.generic import GenericProcessor
from rlx.adapters.rows.processors.inspect_samples import InspectProcessor
from rlx.adapters.rows.processors.mimo import MimoProcessor
from rlx.adapters.rows.processors.nemo_gym import NemoGymProcessor
from rlx.adapters.rows.processors.packed_harbor import PackedHarborProcessor
from rlx.adapters.rows.processors.swe_bench import SweBenchProcessor
from rlx.adapters.rows.processors.tool_calls import ToolCallsProcessor
from rlx.adapters.rows.processors.traces import TraceProcessor
from rlx.adapters.rows.processors.verifiers import VerifiersProcessor
from rlx.adapters.rows.processors.verl import VerlProcessor

PROCESSORS = [PackedHarborProcessor(), MimoProcessor(), NemoGymProcessor(), VerlProcessor(), SweBenchProcessor(),
              InspectProcessor(), ToolCallsProcessor(), VerifiersProcessor(), TraceProcessor(), GenericProcessor()]
