"""The dataflow engine the deterministic checks call: the parser front end, per-function flow,
summaries across functions, and the model of a rule's ``taint:`` section."""
