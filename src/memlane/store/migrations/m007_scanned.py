"""Migration 7: the injection scan's clean verdicts kept with the texts (`safety.scan_stored`).

`scanned` is the tag (`safety.SCANNER`) of the scanner that found the row's text clean when it
was stored, 0 when none did (every row before this migration): a text is scanned when shown
unless its tag is the running scanner's. The tag belongs to one text, so a statement that
changes the text without setting a tag of its own resets it (the triggers below), whichever
code path or tool wrote: a verdict can never outlive the text it was about.
"""

from __future__ import annotations

from .runner import Migration

_TABLES = (("messages", "content"), ("records", "text"), ("episodes", "line"))

_SQLITE = "".join(
    f"ALTER TABLE {t} ADD COLUMN scanned INTEGER NOT NULL DEFAULT 0;\n"
    f"CREATE TRIGGER {t}_rescan AFTER UPDATE OF {c} ON {t}\n"
    f"WHEN new.{c} IS NOT old.{c} AND new.scanned IS old.scanned AND new.scanned <> 0 BEGIN\n"
    f"    UPDATE {t} SET scanned = 0 WHERE rowid = new.rowid;\n"
    "END;\n"
    for t, c in _TABLES)

_POSTGRES = "".join(
    f"ALTER TABLE {t} ADD COLUMN scanned INTEGER NOT NULL DEFAULT 0;\n"
    f"CREATE FUNCTION memlane_{t}_rescan() RETURNS trigger LANGUAGE plpgsql AS $$\n"
    "BEGIN\n"
    f"    IF NEW.{c} IS DISTINCT FROM OLD.{c} AND NEW.scanned = OLD.scanned THEN\n"
    "        NEW.scanned := 0;\n"
    "    END IF;\n"
    "    RETURN NEW;\n"
    "END $$;\n"
    f"CREATE TRIGGER {t}_rescan BEFORE UPDATE OF {c} ON {t}\n"
    f"    FOR EACH ROW EXECUTE FUNCTION memlane_{t}_rescan();\n"
    for t, c in _TABLES)

# SQLite only: a record's length in words as the bounded search weighs it (spaces + 2, close to
# FTS5's token count for one-line facts; `SQLiteSearch._sql_candidates`), kept with the row by
# triggers instead of computed from the text for every posting a search reads.
_WORDS = "length({t}) - length(replace({t}, ' ', '')) + 2"
_SQLITE += f"""
ALTER TABLE records ADD COLUMN words INTEGER NOT NULL DEFAULT 0;
UPDATE records SET words = {_WORDS.format(t="text")};
CREATE TRIGGER records_words_ai AFTER INSERT ON records BEGIN
    UPDATE records SET words = {_WORDS.format(t="new.text")} WHERE rowid = new.rowid;
END;
CREATE TRIGGER records_words_au AFTER UPDATE OF text ON records WHEN new.text IS NOT old.text
BEGIN
    UPDATE records SET words = {_WORDS.format(t="new.text")} WHERE rowid = new.rowid;
END;
"""

SQLITE = Migration(7, "scan verdicts kept; records' words", _SQLITE)
POSTGRES = Migration(7, "scan verdicts kept", _POSTGRES)
