"""Training a model with the paper's recipe: the loop (`train`), its learning-rate schedule, held-out
evaluation and the film recorded while it learns. The command line that drives it is `transformer.cli.train`."""
