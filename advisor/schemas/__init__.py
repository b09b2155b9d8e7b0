"""JSON Schemas shipped with advisor (report format)."""
