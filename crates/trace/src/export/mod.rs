//! Exporters: Chrome / Perfetto trace JSON, SVG Gantt chart, CSV job table,
//! and the text and JSON statistics.
