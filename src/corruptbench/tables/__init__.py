"""Tables as data, each entry with its source: per-severity corruption parameters, ImageNet-P
schedules, the published AlexNet errors, the measured CPU dispatch of the torch backend."""
