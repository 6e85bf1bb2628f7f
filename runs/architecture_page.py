"""Everything the Architecture page (views/architecture.py) draws: Figure 1 of the paper for the current
model with the live shapes of one run, and its parameters counted per component."""

from __future__ import annotations

from dataclasses import dataclass

from runs.teaching_arrays import parameter_sizes
from transformer.config import TransformerConfig
from transformer.storage.checkpoint import ModelBundle
from viz.architecture import Box, architecture_boxes, architecture_hook_names, parameter_groups
from viz.trace import TraceData


@dataclass(frozen=True)
class ArchitecturePage:
    trace: TraceData  # the run the shapes come from (layer 0's hooks only)
    config: TransformerConfig
    stacks: dict[str, list[Box]]  # stack → its boxes, shapes filled in from the run
    parameters: list[tuple[str, int]]  # (component, element count), in model order

    @property
    def total_parameters(self) -> int:
        return sum(n for _, n in self.parameters)


def hook_names(bundle: ModelBundle) -> tuple[str, ...]:
    """What the run records: the hooks the diagram reads its shapes from."""
    config = bundle.config
    return architecture_hook_names(config.is_encoder_decoder, config.norm_position, config.is_encoder_only)


def architecture_page(bundle: ModelBundle, trace: TraceData) -> ArchitecturePage:
    """The page's numbers from `trace`, a run of `bundle` recording `hook_names(bundle)`."""
    config = bundle.config
    shapes = {name: a.shape for name, a in trace.arrays.items()}
    return ArchitecturePage(
        trace=trace,
        config=config,
        stacks=architecture_boxes(config.is_encoder_decoder, config.norm_position, shapes, config.is_encoder_only),
        parameters=parameter_groups(parameter_sizes(bundle)),
    )
