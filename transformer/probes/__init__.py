"""Measuring a trained model: which heads matter (`importance`), what each head does (`head_detectors` on
`detector_inputs`), what the causal mask changes (`causal`), the induction model's heads and a translator's
quality on its corpus (`corpus`). None of the model files import these."""
