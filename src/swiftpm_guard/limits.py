"""Size caps for the text inputs we read whole: real ones are kilobytes; hostile ones are not."""

TEMPLATE_MAX_BYTES = 4 * 1024 * 1024
WORKFLOW_MAX_BYTES = 2 * 1024 * 1024
CHECKSUMS_MAX_BYTES = 1024 * 1024
LIST_MAX_BYTES = 1024 * 1024
