"""Time in queries and in the index: phrases, dates, ranges, spans, the timeline."""

from engine import lazy_exports

_PUBLIC = {"resolve_time": "timephrase", "period": "timerange", "shift": "timerange",
           "now": "clock", "today": "clock", "ClockError": "clock"}
__all__ = sorted(_PUBLIC)
__getattr__, __dir__ = lazy_exports(__name__, _PUBLIC)
