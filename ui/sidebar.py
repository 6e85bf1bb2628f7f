"""The sidebar every page shares: language, model (with its card), and a random model's config.

Every widget is bound to a URL query parameter (`bind="query-params"`), so a copied link opens
the same language, model and settings.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import streamlit as st

from runs.model_ref import RANDOM_DEFAULTS, ModelRef, is_grammar_demo, shipped_models
from runs.pretrained import pretrained_key
from transformer.hf.errors import PretrainedRefused
from transformer.hf.load import PRETRAINED_TASK
from transformer.storage.checkpoint import CheckpointError, ModelBundle
from transformer.storage.registry import DEFAULT_MODEL, RANDOM, list_models
from transformer.storage.untrusted_files import one_line
from ui.caches import get_bundle, working
from ui.i18n import DEFAULT_LANGUAGE, LANG_KEY, LANGUAGES, catalog, current_language, language_code, t
from ui.labels import relabel_when_changed
from ui.precision import exact_switch
from ui.pretrained import pretrained_choices, pretrained_summary, refusal_line
from ui.safe import md_literal
from ui.trained_models import trained_label, trained_model_keys

ARCHITECTURES = ["encoder-decoder", "decoder-only"]
POSITIONALS = ["sinusoidal", "learned", "none"]
MODEL_KEY = "model"  # the model picker's widget key and URL parameter


@dataclass(frozen=True)
class ModelChoice:
    key: str  # `ModelRef.key`, for get_bundle / get_trace
    bundle: ModelBundle

    @property
    def ref(self) -> ModelRef:
        return ModelRef.parse(self.key)

    @property
    def is_random(self) -> bool:
        return self.ref.is_random


def language_switch() -> None:
    """Render the language switch first, so everything after it (page titles too) is translated.

    The URL carries the language as a code (`?lang=zh`), read and written here rather than through
    `bind="query-params"`: a bound segmented control stores its display label ("简体中文") and ignores
    `?lang=zh`. The label is still accepted, so links copied before keep working.
    """
    if LANG_KEY not in st.session_state:  # the first run of a session: the link decides
        st.session_state[LANG_KEY] = language_code(st.query_params.get(LANG_KEY)) or DEFAULT_LANGUAGE
    lang = st.sidebar.segmented_control(
        "Language / 语言",
        options=list(LANGUAGES),
        format_func=LANGUAGES.get,
        key=LANG_KEY,
        required=True,
    )
    if lang == DEFAULT_LANGUAGE:
        st.query_params.pop(LANG_KEY, None)
    elif st.query_params.get(LANG_KEY) != lang:
        st.query_params[LANG_KEY] = lang


def _codes_help(prefix: str, codes: tuple[str, ...] | list[str]) -> str:
    """What each option code means, in the UI language.

    URL-bound widgets show their codes, not translated labels: a bound widget stores its label in
    the URL, so a translated label would stop matching after a language switch and reset the choice.
    """
    return "  \n".join(f"`{code}`: {t(f'sidebar.{prefix}_' + code.replace('-', '_'))}" for code in codes)


def _random_settings() -> dict[str, object]:
    """Widgets for an untrained model's config; each bound to the URL."""
    d = RANDOM_DEFAULTS
    with st.sidebar.expander(t("sidebar.random_config"), expanded=True):
        arch = st.selectbox(
            t("sidebar.architecture"),
            ARCHITECTURES,
            key="r_arch",
            bind="query-params",
            help=_codes_help("arch", ARCHITECTURES),
        )
        layers = st.slider(t("sidebar.n_layers"), 1, 6, int(d["n_layers"]), key="r_layers", bind="query-params")
        d_model = st.select_slider(
            t("sidebar.d_model"), [32, 64, 128, 256, 512], int(d["d_model"]), key="r_dmodel", bind="query-params"
        )
        heads = st.select_slider(t("sidebar.n_heads"), [1, 2, 4, 8], int(d["n_heads"]), key="r_heads", bind="query-params")
        norm = st.selectbox(
            t("sidebar.norm_position"),
            ["post", "pre"],
            key="r_norm",
            bind="query-params",
            help=_codes_help("norm", ("post", "pre")),
        )
        positional = st.selectbox(
            t("sidebar.positional"), POSITIONALS, key="r_pos", bind="query-params", help=_codes_help("pos", POSITIONALS)
        )
        seed = st.number_input(t("sidebar.seed"), 0, 10_000, int(d["seed"]), key="r_seed", bind="query-params")
    return {
        "architecture": arch,
        "n_layers": layers,
        "d_model": d_model,
        "n_heads": heads,
        "norm_position": norm,
        "positional": positional,
        "seed": int(seed),
    }


@functools.lru_cache(maxsize=1)
def grammar_demos() -> tuple[str, ...]:
    """The shipped grammar demos, listed last in the picker (read once: shipped models do not change while serving)."""
    return tuple(info.name for info in list_models() if is_grammar_demo(info.card))


@functools.lru_cache(maxsize=2)
def shipped_purposes(lang: str) -> tuple[str, ...]:
    """One help line per shipped model, natural translators first: its name and its card's summary; a grammar
    demo's line says it is one (the picker's labels stay bare names: a link's `?model=` is the label)."""
    summary_key = "summary_zh" if lang == "zh" else "summary"
    demo = catalog(lang)["sidebar.grammar_demo"]
    cards = {info.name: info.card for info in list_models()}
    lines = []
    for name in shipped_models():
        card = cards.get(name, {})
        summary = md_literal(str(card.get(summary_key) or card.get("summary") or ""))
        lines.append(f"`{name}`: {demo.format(summary=summary) if is_grammar_demo(card) else summary}")
    return tuple(lines)


def model_picker() -> ModelChoice | None:
    """Pick a shipped model, a pretrained folder of the server's models dirs, or random weights; show its card.
    None if it could not be loaded."""
    names = shipped_models()
    pretrained = pretrained_choices(names)
    options = [*names, *pretrained, *trained_model_keys(), RANDOM]  # models trained on the training page by this session
    default = DEFAULT_MODEL if DEFAULT_MODEL in names else options[0]
    # after a language switch, re-send the choice so a trained model's name is redrawn in the new language
    resent = relabel_when_changed((), [MODEL_KEY])
    name = st.sidebar.selectbox(
        t("sidebar.model"),
        options,
        index=0 if MODEL_KEY in resent else options.index(default),  # a re-sent value comes with no default
        key=MODEL_KEY,
        bind="query-params",
        help="  \n".join(
            [
                *shipped_purposes(current_language()),
                *(f"`{name}`: {label}" for name, label in pretrained.items()),
                f"`{RANDOM}`: {t('sidebar.random_model')}",
            ]
        ),
        # "Trained here: reverse · step 1,200 · 14:02"; shipped and pretrained names and `random` as they are (a bound
        # widget's URL value is its label: a pretrained folder's family and size are in the help and under the picker)
        format_func=trained_label,
    )
    key = ModelRef.random(**_random_settings()).key if name == RANDOM else name
    key = pretrained_key(name) if name in pretrained else key
    try:
        with working(t("sidebar.loading"), get_bundle, key):
            bundle = get_bundle(key)
    except (CheckpointError, ValueError) as err:  # config limits and bad files: one translated line + the technical one
        failed = t("sidebar.load_failed", name=md_literal(trained_label(name)))
        lead = refusal_line(err) if isinstance(err, PretrainedRefused) else failed
        for place in (st.sidebar, st):
            place.error(lead)
            place.code(one_line(str(err)), language=None, wrap_lines=True)
        return None
    if grammar_demos():  # the picker's labels stay the models' names (a link's ?model=); the grouping is said here
        st.sidebar.caption(t("sidebar.grammar_demos", names=", ".join(grammar_demos())))
    _card_summary(bundle)
    exact_switch(bundle)
    model_warnings(bundle)
    return ModelChoice(key, bundle)


def model_warnings(bundle: ModelBundle) -> None:
    """What loading the model let pass but the teacher should know (a broken card.json: the model loads
    without its facts), as a translated lead line and the loader's own one-liners."""
    if bundle.warnings:
        st.sidebar.warning(t("sidebar.load_warnings", n=len(bundle.warnings)), icon=":material/warning:")
        st.sidebar.code("\n".join(one_line(w) for w in bundle.warnings), language=None, wrap_lines=True)


def _card_summary(bundle: ModelBundle) -> None:
    card, config = bundle.card, bundle.config
    summary = card.get("summary_zh" if current_language() == "zh" else "summary") or card.get("summary", "")
    if card.get("task") == PRETRAINED_TASK:
        summary = pretrained_summary(bundle)
    if card.get("task") == RANDOM:
        summary = t("sidebar.random_summary")
    lines = [summary] if summary else []
    metrics = card.get("metrics", {}) if isinstance(card.get("metrics"), dict) else {}
    bleu, chrf, exact = metrics.get("heldout_bleu"), metrics.get("heldout_chrf"), metrics.get("heldout_exact_match")
    if isinstance(bleu, (int, float)) and isinstance(chrf, (int, float)):  # a natural translator: many right answers
        lines.append(t("sidebar.quality", bleu=f"{bleu:.1f}", chrf=f"{chrf:.1f}"))
    elif isinstance(exact, (int, float)):
        lines.append(t("sidebar.accuracy", value=f"{100 * exact:.1f}%"))
    lines.append(
        t(
            "sidebar.shape",
            layers=config.n_layers,
            heads=config.n_heads,
            d_model=config.d_model,
            params=f"{bundle.model.num_parameters():,}",
        )
    )
    st.sidebar.caption("  \n".join(lines))
