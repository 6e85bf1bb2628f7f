"""The words of every figure, read from the catalog in the user's language: one builder per `*Text` class.

`viz/` never looks words up: each figure takes one frozen `*Text` dataclass whose defaults are the English
words (what tests and benchmarks draw with). The pages build that record here, so a catalog key is named
once, however many pages or lesson steps draw the figure; `tests/ui/test_figure_words.py` checks that in
English each builder gives exactly the class's defaults.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from transformer.config import TransformerConfig
from ui.i18n import t
from viz.architecture import COMPONENT_PAGES, Box
from viz.architecture_figure import ArchitectureText
from viz.batchnorm_contrast import ContrastText
from viz.detector_figure import DetectorText
from viz.ffn_figures import FeedForwardText
from viz.head_grid import GridText
from viz.head_importance import ImportanceText
from viz.head_summary import MetricText
from viz.heatmap import HeatmapText
from viz.layernorm_figures import LayerNormText
from viz.lesson_figures import LessonText
from viz.mask_figures import MaskText
from viz.multihead import MultiHeadText
from viz.norm_diagram import NormDiagramText
from viz.output_distribution import DistributionText
from viz.positional import PositionalText
from viz.scaling import ScalingText
from viz.step_figures import StepText
from viz.training_curves import CurveText


def step_text() -> StepText:
    """The three figures of one query, step by step (the step-by-step page and the lesson's attention step)."""
    return StepText(
        q=t("step.fig_q"),
        k=t("step.fig_k"),
        shown_keys=t("step.fig_shown_keys"),
        v=t("step.fig_v"),
        dim=t("step.axis_dim"),
        dot=t("step.row_dot"),
        scale=t("step.row_scale"),
        mask=t("step.row_mask"),
        softmax=t("step.row_softmax"),
        key=t("step.axis_key"),
        other=t("step.row_other"),
        z=t("step.row_z"),
        captured=t("step.row_captured"),
    )


def multihead_text() -> MultiHeadText:
    """The W^O figure of the step-by-step page."""
    return MultiHeadText(
        concat=t("step.fig_concat"),
        per_head=t("step.fig_per_head"),
        out=t("step.fig_out"),
        head=t("step.fig_head"),
        sum=t("step.fig_sum"),
        captured=t("step.fig_model_out"),
        dim=t("step.axis_dim"),
    )


def scaling_text() -> ScalingText:
    """The √d_k figures (the step-by-step page and the lesson's scaling step); d_k is a symbol, never translated."""
    return ScalingText(
        unscaled=t("step.fig_unscaled"),
        scaled=t("step.fig_scaled"),
        expected=t("step.fig_expected"),
        variance=t("step.fig_variance"),
        key=t("step.axis_key"),
        weight=t("step.fig_weight"),
    )


def _architecture_names(config: TransformerConfig) -> dict[str, str]:
    """Component (or box id) → the name on its box, for this model (its positional encoding, its stacks)."""
    names = {c: t(f"architecture.comp_{c}") for c in COMPONENT_PAGES if c != "positional"}
    names["positional"] = t(f"architecture.comp_positional_{config.positional}")
    names["encoder.tokens"] = t("architecture.comp_tokens_encoder")
    names["decoder.tokens"] = t(
        "architecture.comp_tokens_decoder" if config.is_encoder_decoder else "architecture.comp_tokens_decoder_only"
    )
    return names


def architecture_text(config: TransformerConfig, stacks: Mapping[str, list[Box]]) -> ArchitectureText:
    """The diagram of this model: its box names, the second shapes its boxes show and the pages they link to."""
    boxes = [b for bs in stacks.values() for b in bs]
    return ArchitectureText(
        names=_architecture_names(config),
        pages={p: t(f"nav.{p}") for b in boxes for p in b.pages},
        details={b.component: t(f"architecture.detail_{b.component}") for b in boxes if b.detail_hook},
        encoder=t("architecture.encoder"),
        decoder=t("architecture.decoder"),
        n_layers=t("architecture.n_layers"),
        probabilities=t("architecture.probabilities"),
        memory=t("architecture.memory"),
        see=t("architecture.see"),
    )


def layernorm_text() -> LayerNormText:
    """The LayerNorm figures (the LayerNorm page and the lesson's LayerNorm step)."""
    return LayerNormText(
        in_mean=t("layernorm.in_mean"),
        in_std=t("layernorm.in_std"),
        out_mean=t("layernorm.out_mean"),
        out_std=t("layernorm.out_std"),
        mean=t("layernorm.mean"),
        std=t("layernorm.std"),
        rms=t("layernorm.rms"),
        input=t("layernorm.input"),
        output=t("layernorm.output"),
        token=t("layernorm.token"),
        gain=t("layernorm.gain"),
        bias=t("layernorm.bias"),
        feature=t("layernorm.feature"),
        stream_norm=t("layernorm.stream_norm"),
        sqrt_d=t("layernorm.sqrt_d"),
        bytes=t("bytes.hover"),
    )


def norm_diagram_text() -> NormDiagramText:
    """Post-norm beside pre-norm (the LayerNorm page)."""
    return NormDiagramText(
        x=t("layernorm.box_x"),
        sublayer=t("layernorm.box_sublayer"),
        norm=t("layernorm.box_norm"),
        add=t("layernorm.box_add"),
        out=t("layernorm.box_out"),
        post=t("layernorm.norm_post"),
        pre=t("layernorm.norm_pre"),
    )


def contrast_text() -> ContrastText:
    """LayerNorm against BatchNorm on a padded batch (the LayerNorm page)."""
    return ContrastText(
        small=t("layernorm.batch_small"),
        large=t("layernorm.batch_large"),
        with_padding=t("layernorm.with_padding"),
        feature=t("layernorm.feature"),
        batch_mean=t("layernorm.batch_mean"),
        sentence_bn=t("layernorm.s1_bn"),
        sentence_ln=t("layernorm.s1_ln"),
        token=t("layernorm.token"),
        bytes=t("bytes.hover"),
    )


def positional_text() -> PositionalText:
    """The positional-encoding figures (the positional page and the lesson's embeddings and positions steps)."""
    return PositionalText(
        position=t("positional.position"),
        dimension=t("positional.dimension"),
        token=t("positional.token"),
        value=t("positional.value"),
        wavelength=t("positional.wavelength"),
        span=t("positional.span"),
        chosen=t("positional.chosen"),
        dot=t("positional.dot"),
        offset=t("positional.offset_axis"),
        closed=t("positional.closed_title"),
        fitted=t("positional.fitted_title"),
        out_dim=t("positional.out_dim"),
        in_dim=t("positional.in_dim"),
        learned_table=t("positional.learned_table"),
        sinusoid_table=t("positional.sinusoid_table"),
        learned_sim=t("positional.learned_sim"),
        sinusoid_sim=t("positional.sinusoid_sim"),
        cosine=t("positional.cosine"),
        scaled=t("positional.scaled"),
        pe=t("positional.pe"),
        sum=t("positional.sum"),
        norm=t("positional.norm"),
        norm_raw=t("positional.norm_raw"),
        norm_scaled=t("positional.norm_scaled"),
        norm_pe=t("positional.norm_pe"),
        norm_total=t("positional.norm_total"),
        pe_reference=t("positional.pe_reference"),
        bytes=t("bytes.hover"),
    )


def feed_forward_text() -> FeedForwardText:
    """The feed-forward page's figures."""
    return FeedForwardText(
        strip_x=t("feed_forward.strip_x"),
        strip_hidden=t("feed_forward.strip_hidden"),
        strip_out=t("feed_forward.strip_out"),
        unit=t("feed_forward.unit"),
        firing_title=t("feed_forward.firing_title"),
        stack_encoder=t("feed_forward.stack_encoder"),
        stack_decoder=t("feed_forward.stack_decoder"),
        token=t("feed_forward.token"),
        share_firing=t("feed_forward.share_firing"),
        residual_all=t("feed_forward.residual_title_all"),
        residual_one=t("feed_forward.residual_title_one"),
        layer=t("feed_forward.layer"),
        size=t("feed_forward.size"),
        self_attn=t("feed_forward.sublayer_self_attn"),
        cross_attn=t("feed_forward.sublayer_cross_attn"),
        feed_forward=t("feed_forward.part_feed_forward"),
        embeddings=t("feed_forward.part_embeddings"),
        attention=t("feed_forward.part_attention"),
        layernorm=t("feed_forward.part_layernorm"),
        generator=t("feed_forward.part_generator"),
        parameters=t("feed_forward.param_title"),
        bytes=t("bytes.hover"),
    )


def mask_text() -> MaskText:
    """The mask figures and score steps (the masks page and the lesson's masks step); untitled."""
    return MaskText(
        key=t("masks.key"),
        query=t("masks.query"),
        allowed=t("masks.allowed"),
        blocked=t("masks.blocked"),
        token=t("masks.legend_token"),
        pad=t("masks.legend_pad"),
        position=t("masks.position"),
        sentence=t("masks.sentence_n"),
        score=t("masks.score"),
        weight=t("masks.weight"),
        masked=t("masks.masked_word"),
        scores_title=t("masks.scores_title"),
        masked_title=t("masks.masked_title"),
        pattern_title=t("masks.pattern_title"),
        bytes=t("bytes.hover"),
    )


def metric_text(metric: str) -> MetricText:
    """The figure of one head-summary metric (the Attention-heads page)."""
    return MetricText(title=t(f"heads.metric_{metric}"), layer=t("heads.layer"), head=t("heads.head"))


def importance_text() -> ImportanceText:
    """The head-importance figure (the Attention-heads page)."""
    return ImportanceText(
        changed=t("heads.importance_changed"), drop=t("heads.importance_drop"), layer=t("heads.layer"), head=t("heads.head")
    )


def detector_text(scores: Iterable[str]) -> DetectorText:
    """The head-detector scores figure, one panel per score in `scores` (the heads and training pages)."""
    return DetectorText(
        names={name: t(f"detectors.name_{name}") for name in scores}, layer=t("heads.layer"), head=t("heads.head")
    )


def grid_text() -> GridText:
    """The layer × head grid (the Attention-heads page and the lesson's heads step); where rows look is not
    translated ("{query}: {key}")."""
    return GridText(
        tile_label=t("heads.tile_label"),
        hover=t("heads.tile_hover"),
        importance_hover=t("heads.importance_hover"),
        bytes=t("bytes.hover"),
    )


def lesson_text() -> LessonText:
    """The lesson's own figures (parameters, probabilities, the head count)."""
    return LessonText(
        parameters=t("lesson.fig_parameters"),
        feed_forward=t("lesson.part_feed_forward"),
        attention=t("lesson.part_attention"),
        embeddings=t("lesson.part_embeddings"),
        norm=t("lesson.part_norm"),
        probability=t("lesson.fig_probability"),
        written=t("lesson.fig_written"),
        predicted=t("lesson.fig_predicted"),
        smoothing=t("lesson.fig_smoothing"),
        heads=t("lesson.fig_heads"),
        bytes=t("bytes.hover"),
    )


def heatmap_text(title: str = "") -> HeatmapText:
    """One attention matrix titled `title` (the Attention-heads page; the lesson's cross step)."""
    return HeatmapText(
        title=title,
        x_title=t("heads.axis_key"),
        y_title=t("heads.axis_query"),
        value=t("heads.weight"),
        alignment=t("heads.alignment_legend"),
        block=t("heads.block_value"),
        bytes=t("bytes.hover"),
    )


def curve_text() -> CurveText:
    """The training curves and the learning-rate schedule (the training page)."""
    return CurveText(
        step=t("training.step"),
        loss=t("training.loss"),
        accuracy=t("training.token_accuracy"),
        heldout=t("training.heldout"),
        fraction=t("training.fraction"),
        rate=t("training.rate"),
        frame=t("training.frame"),
    )


def distribution_text(title: str = "") -> DistributionText:
    """The output distribution of one step titled `title` (the output page)."""
    return DistributionText(
        title=title, x_title=t("output.probability"), chosen=t("output.chosen"), hover=t("output.hover"), bytes=t("bytes.hover")
    )
