"""Extractors: one per source type, turning a data-layer file into Chunks.

``EXTRACTORS`` maps every source type of ``engine.scanner.SOURCE_TYPES`` to its class;
``get_extractor(source_type)`` returns an instance. Formats: ``docs/data-layer.md``.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from .base import BaseExtractor, Chunk, ExtractError, Problems
from .documents import InterviewMetaExtractor, MeetingExtractor, VoiceExtractor
from .health import CGMExtractor, GarminExtractor
from .markdown import (
    BoardSummaryExtractor,
    CodebaseDocExtractor,
    EntityFileExtractor,
    MarkdownExtractor,
    MarkdownTranscriptExtractor,
    NoteExtractor,
    RwgpsMemoryExtractor,
    ScratchExtractor,
)
from .messaging import (
    MessagingExtractor,
    SignalExtractor,
    SlackExtractor,
    TelegramExtractor,
    WhatsAppExtractor,
)
from .records import (
    CheckinExtractor,
    EmailCatalogExtractor,
    EventExtractor,
    ExperimentExtractor,
    InterviewExtractor,
    JournalExtractor,
    ObservationExtractor,
    PodcastDigestExtractor,
    QuoteExtractor,
    RecordExtractor,
    StoryExtractor,
)

_CLASSES: tuple[type[BaseExtractor], ...] = (
    SlackExtractor,
    TelegramExtractor,
    WhatsAppExtractor,
    SignalExtractor,
    MeetingExtractor,
    EmailCatalogExtractor,
    EventExtractor,
    GarminExtractor,
    CGMExtractor,
    CheckinExtractor,
    ExperimentExtractor,
    JournalExtractor,
    VoiceExtractor,
    MarkdownTranscriptExtractor,
    QuoteExtractor,
    ObservationExtractor,
    StoryExtractor,
    InterviewMetaExtractor,
    InterviewExtractor,
    PodcastDigestExtractor,
    BoardSummaryExtractor,
    EntityFileExtractor,
    CodebaseDocExtractor,
    RwgpsMemoryExtractor,
    ScratchExtractor,
    NoteExtractor,
)

EXTRACTORS: dict[str, type[BaseExtractor]] = {cls.source_type: cls for cls in _CLASSES}
# chat logs: windows of messages, counted and listed by message (engine/dates/message_days.py)
CHAT_TYPES: tuple[str, ...] = tuple(t for t, cls in EXTRACTORS.items()
                                    if issubclass(cls, MessagingExtractor))
# records whose first line says what they are: the same first line is the same thing
# (a quote said again, a recurring event) whatever the lines under it (engine/rank/repeats.py)
HEADLINE_TYPES: tuple[str, ...] = tuple(t for t, cls in EXTRACTORS.items()
                                        if getattr(cls, "headline_names_record", False))


def channel_name(source_type: str, source_file: str) -> str:
    """A chat log's name as results and the timeline show it (``Maya`` for
    ``data/whatsapp/Maya.jsonl``)."""
    extractor = get_extractor(source_type)
    path = PurePosixPath(source_file)
    return extractor.channel_name(path) if isinstance(extractor, MessagingExtractor) \
        else path.stem


def get_extractor(source_type: str) -> BaseExtractor:
    """A fresh extractor instance for ``source_type``; KeyError names the known types."""
    try:
        cls = EXTRACTORS[source_type]
    except (KeyError, TypeError):
        known = ", ".join(sorted(EXTRACTORS))
        raise KeyError(f"no extractor for source type {source_type!r}; known types: {known}")\
            from None
    return cls()


__all__ = [
    "CHAT_TYPES",
    "EXTRACTORS",
    "HEADLINE_TYPES",
    "BaseExtractor",
    "BoardSummaryExtractor",
    "CGMExtractor",
    "CheckinExtractor",
    "Chunk",
    "CodebaseDocExtractor",
    "EmailCatalogExtractor",
    "EntityFileExtractor",
    "EventExtractor",
    "ExperimentExtractor",
    "ExtractError",
    "GarminExtractor",
    "InterviewExtractor",
    "InterviewMetaExtractor",
    "JournalExtractor",
    "MarkdownExtractor",
    "MarkdownTranscriptExtractor",
    "MeetingExtractor",
    "MessagingExtractor",
    "NoteExtractor",
    "ObservationExtractor",
    "PodcastDigestExtractor",
    "Problems",
    "QuoteExtractor",
    "RecordExtractor",
    "RwgpsMemoryExtractor",
    "ScratchExtractor",
    "SignalExtractor",
    "SlackExtractor",
    "StoryExtractor",
    "TelegramExtractor",
    "VoiceExtractor",
    "get_extractor",
]
