"""JSON Schemas shipped with advisor (the report format, and `advisor fix --format json`)."""
