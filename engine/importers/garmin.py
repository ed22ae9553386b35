"""Garmin Connect JSON -> ``data/health/garmin/<YYYY-MM-DD>.json`` (``garmin`` day files).

Reads, from a file, a folder or the GDPR export zip, every JSON it recognises and merges them
per calendar day:

* the daily user summary (Connect API ``usersummary``, or the GDPR ``UDSFile_*.json`` list of
  them, whose body battery / stress sit in ``bodyBattery.bodyBatteryStatList`` /
  ``allDayStress.aggregatorList``);
* ``dailyHeartRate``, ``dailyStress``, body battery ``reports/daily``, ``hrv``;
* sleep: the API's ``dailySleepDTO`` or the GDPR ``*_sleepData.json`` list;
* activities: the GDPR ``*_summarizedActivities.json`` (duration in ms, distance in cm) or an
  API activity list (seconds, metres).

Unrecognised JSON files in the export (profiles, gear, settings…) are counted, not reported.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from ._util import ImportFailed
from .base import Importer
from .context import ImportContext


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.replace(",", ""))
        except ValueError:
            return None
    return None


def _int(value: Any) -> int | None:
    n = _num(value)
    return int(round(n)) if n is not None else None


def _day(value: Any) -> str | None:
    if isinstance(value, dict):
        value = value.get("date")
    if isinstance(value, str) and len(value) >= 10:
        try:
            return datetime.strptime(value[:10], "%Y-%m-%d").date().isoformat()
        except ValueError:
            return None
    return None


class _Days:
    def __init__(self) -> None:
        self.days: dict[str, dict[str, Any]] = {}
        self.activity_ids: dict[str, set] = {}

    def set(self, day: str, key: str, value: Any, sub: str | None = None) -> None:
        if value is None:
            return
        doc = self.days.setdefault(day, {"date": day})
        if sub:
            doc.setdefault(sub, {})[key] = value
        else:
            doc[key] = value

    def activity(self, day: str, act_id: Any, item: dict[str, Any]) -> None:
        seen = self.activity_ids.setdefault(day, set())
        if act_id is not None and act_id in seen:
            return
        seen.add(act_id)
        self.days.setdefault(day, {"date": day}).setdefault("activities", []).append(item)


_ORDER = ["date", "steps", "distance_km", "active_kcal", "resting_hr", "max_hr", "stress_avg",
          "body_battery", "sleep", "activities"]


class GarminImporter(Importer):
    kind = "garmin"
    description = "Garmin Connect daily JSON / GDPR export -> data/health/garmin/<date>.json"

    def parse(self, ctx: ImportContext) -> None:
        tree = ctx.tree()
        days = _Days()
        used = 0
        for _, label, _, doc in self.json_files(ctx, tree, "no .json files found"):
            if self._dispatch(doc, days, ctx, label):
                used += 1
            else:
                ctx.skip("JSON files that are not daily health data")
        if not used and tree.mode == "file":
            raise ImportFailed(f"{ctx.source}: not Garmin Connect daily data")
        for day in sorted(days.days):
            raw = days.days[day]
            doc = {k: raw[k] for k in _ORDER if k in raw}
            doc.update({k: v for k, v in raw.items() if k not in doc})
            ctx.json_document(f"data/health/garmin/{day}.json", doc)

    # -- shapes --------------------------------------------------------------------------

    def _dispatch(self, doc: Any, days: _Days, ctx: ImportContext, label: str) -> bool:
        if isinstance(doc, dict):
            if isinstance(doc.get("hrvSummary"), dict):
                return self._hrv(doc["hrvSummary"], days)
            if isinstance(doc.get("dailySleepDTO"), dict):
                return self._sleep(doc["dailySleepDTO"], days)
            if _day(doc.get("calendarDate")):
                if any(k in doc for k in ("totalSteps", "totalKilocalories", "bodyBattery",
                                          "allDayStress", "totalDistanceMeters")):
                    return self._summary(doc, days)
                if "avgStressLevel" in doc:
                    days.set(_day(doc["calendarDate"]), "stress_avg", _pos(doc["avgStressLevel"]))
                    return True
                if "restingHeartRate" in doc or "heartRateValues" in doc:
                    d = _day(doc["calendarDate"])
                    days.set(d, "resting_hr", _int(doc.get("restingHeartRate")))
                    days.set(d, "max_hr", _int(doc.get("maxHeartRate")))
                    days.set(d, "min_hr", _int(doc.get("minHeartRate")))
                    return True
                if any(k.endswith("SleepSeconds") for k in doc):
                    return self._sleep(doc, days)
            if isinstance(doc.get("summarizedActivitiesExport"), list):
                return self._activities(doc["summarizedActivitiesExport"], days, gdpr=True)
            return False
        if not isinstance(doc, list) or not doc:
            return False
        items = [d for d in doc if isinstance(d, dict)]
        if not items:
            return False
        first = items[0]
        if "summarizedActivitiesExport" in first:
            acts = [a for d in items for a in d.get("summarizedActivitiesExport") or []]
            return self._activities(acts, days, gdpr=True)
        if "activityId" in first and "activityType" in first:
            return self._activities(items, days, gdpr=False)
        if _day(first.get("calendarDate")) and any(k.endswith("SleepSeconds") for k in first):
            return any([self._sleep(d, days) for d in items])
        if _day(first.get("calendarDate")):
            return any([self._summary(d, days) for d in items if _day(d.get("calendarDate"))])
        if _day(first.get("date")) and ("bodyBatteryValuesArray" in first or "charged" in first):
            for d in items:
                self._battery_report(d, days)
            return True
        return False

    def _summary(self, s: dict[str, Any], days: _Days) -> bool:
        day = _day(s.get("calendarDate"))
        if not day:
            return False
        days.set(day, "steps", _int(s.get("totalSteps")))
        dist = _num(s.get("totalDistanceMeters"))
        days.set(day, "distance_km", round(dist / 1000, 2) if dist is not None else None)
        days.set(day, "active_kcal", _int(s.get("activeKilocalories")))
        days.set(day, "resting_hr", _int(s.get("restingHeartRate")))
        days.set(day, "max_hr", _int(s.get("maxHeartRate")))
        days.set(day, "min_hr", _int(s.get("minHeartRate")))
        days.set(day, "stress_avg", _pos(s.get("averageStressLevel")))
        days.set(day, "total_kcal", _int(s.get("totalKilocalories")))
        floors = _num(s.get("floorsAscended"))
        days.set(day, "floors_ascended", round(floors, 1) if floors is not None else None)
        mod, vig = _int(s.get("moderateIntensityMinutes")), _int(s.get("vigorousIntensityMinutes"))
        if mod is not None or vig is not None:
            days.set(day, "intensity_minutes", (mod or 0) + 2 * (vig or 0))
        days.set(day, "spo2_avg", _num(s.get("averageSpo2") or s.get("averageSpo2Value")))
        high = _int(s.get("bodyBatteryHighestValue"))
        low = _int(s.get("bodyBatteryLowestValue"))
        bb = s.get("bodyBattery")
        if isinstance(bb, dict):  # GDPR UDSFile
            for stat in bb.get("bodyBatteryStatList") or []:
                if isinstance(stat, dict):
                    kind = stat.get("bodyBatteryStatType")
                    if kind == "HIGHEST" and high is None:
                        high = _int(stat.get("statsValue"))
                    elif kind == "LOWEST" and low is None:
                        low = _int(stat.get("statsValue"))
            days.set(day, "charged", _int(bb.get("chargedValue")), sub="body_battery")
            days.set(day, "drained", _int(bb.get("drainedValue")), sub="body_battery")
        days.set(day, "high", high, sub="body_battery")
        days.set(day, "low", low, sub="body_battery")
        days.set(day, "charged", _int(s.get("bodyBatteryChargedValue")), sub="body_battery")
        days.set(day, "drained", _int(s.get("bodyBatteryDrainedValue")), sub="body_battery")
        stress = s.get("allDayStress")
        if isinstance(stress, dict):
            for agg in stress.get("aggregatorList") or []:
                if isinstance(agg, dict) and agg.get("type") == "TOTAL":
                    days.set(day, "stress_avg", _pos(agg.get("averageStressLevel")))
        sleeping = _num(s.get("sleepingSeconds"))
        if sleeping:
            days.set(day, "duration_min", int(round(sleeping / 60)), sub="sleep")
        return True

    def _sleep(self, s: dict[str, Any], days: _Days) -> bool:
        day = _day(s.get("calendarDate"))
        if not day:
            return False
        deep, light = _num(s.get("deepSleepSeconds")), _num(s.get("lightSleepSeconds"))
        rem = _num(s.get("remSleepSeconds"))
        total = _num(s.get("sleepTimeSeconds"))
        if total is None and any(v is not None for v in (deep, light, rem)):
            total = (deep or 0) + (light or 0) + (rem or 0)
        if total:
            days.set(day, "duration_min", int(round(total / 60)), sub="sleep")
        if deep is not None:
            days.set(day, "deep_min", int(round(deep / 60)), sub="sleep")
        if rem is not None:
            days.set(day, "rem_min", int(round(rem / 60)), sub="sleep")
        scores = s.get("sleepScores")
        score = None
        if isinstance(scores, dict):
            overall = scores.get("overall")
            score = _int(overall.get("value")) if isinstance(overall, dict) else _int(
                scores.get("overallScore") or scores.get("overall"))
        days.set(day, "score", score, sub="sleep")
        return True

    def _hrv(self, h: dict[str, Any], days: _Days) -> bool:
        day = _day(h.get("calendarDate"))
        if not day:
            return False
        days.set(day, "last_night_avg", _int(h.get("lastNightAvg")), sub="hrv")
        days.set(day, "weekly_avg", _int(h.get("weeklyAvg")), sub="hrv")
        if isinstance(h.get("status"), str):
            days.set(day, "status", h["status"].lower(), sub="hrv")
        return True

    def _battery_report(self, r: dict[str, Any], days: _Days) -> None:
        day = _day(r.get("date"))
        if not day:
            return
        values = [_num(v[1]) for v in r.get("bodyBatteryValuesArray") or []
                  if isinstance(v, list) and len(v) > 1]
        values = [v for v in values if v is not None]
        if values:
            days.set(day, "high", int(max(values)), sub="body_battery")
            days.set(day, "low", int(min(values)), sub="body_battery")
        days.set(day, "charged", _int(r.get("charged")), sub="body_battery")
        days.set(day, "drained", _int(r.get("drained")), sub="body_battery")

    def _activities(self, acts: list[Any], days: _Days, *, gdpr: bool) -> bool:
        found = False
        for a in acts:
            if not isinstance(a, dict):
                continue
            start = a.get("startTimeLocal")
            if isinstance(start, int | float) and not isinstance(start, bool):
                # the GDPR export stores local wall-clock time as if it were UTC epoch ms
                day = datetime.fromtimestamp(start / 1000, UTC).date().isoformat()
            else:
                day = _day(start)
            if not day:
                continue
            kind = a.get("activityType")
            if isinstance(kind, dict):
                kind = kind.get("typeKey")
            kind = str(kind or a.get("sportType") or "activity").replace("_", " ").lower()
            duration = _num(a.get("duration"))
            distance = _num(a.get("distance"))
            item: dict[str, Any] = {"type": kind}
            if duration is not None:
                item["duration_min"] = round(duration / (60000 if gdpr else 60), 1)
            if distance:
                item["distance_km"] = round(distance / (100000 if gdpr else 1000), 2)
            hr = _int(a.get("avgHr") or a.get("averageHR"))
            if hr is not None:
                item["avg_hr"] = hr
            if isinstance(a.get("name"), str) and a["name"].strip():
                item["name"] = a["name"].strip()
            days.activity(day, a.get("activityId"), item)
            found = True
        return found or not acts


def _pos(value: Any) -> int | None:
    """Garmin writes -1/-2 for "no data" in stress fields."""
    n = _int(value)
    return n if n is not None and n >= 0 else None
