"""Migration 6: a revision counter, so a memory's read cache can key on a PostgreSQL store's
`revision()` (`memlane.caches`).

SQLite has `PRAGMA data_version` (it moves when any other connection commits to the file), so
its form is empty. PostgreSQL has no such number: this adds one row that every transaction
changing records, their sources or episodes bumps once, at commit (a deferred constraint
trigger), whichever process or tool wrote. Taken last and held only through the commit, its
row lock orders committing writers without taking part in a deadlock. Message appends do not
move it (a turn's own appends would otherwise empty the cache every turn).
"""

from __future__ import annotations

from .runner import Migration

_SQLITE = """
-- Nothing to add: `PRAGMA data_version` is SQLite's revision.
SELECT 1;
"""

_POSTGRES = """
CREATE TABLE memlane_revision (id INTEGER PRIMARY KEY CHECK (id = 1), n BIGINT NOT NULL);
INSERT INTO memlane_revision VALUES (1, 0);
CREATE FUNCTION memlane_bump_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Once per transaction, however many rows it changed.
    IF current_setting('memlane.bumped', true) IS DISTINCT FROM txid_current()::text THEN
        UPDATE memlane_revision SET n = n + 1 WHERE id = 1;
        PERFORM set_config('memlane.bumped', txid_current()::text, true);
    END IF;
    RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER records_revision AFTER INSERT OR UPDATE OR DELETE ON records
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION memlane_bump_revision();
CREATE CONSTRAINT TRIGGER record_sources_revision AFTER INSERT OR UPDATE OR DELETE
    ON record_sources DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    EXECUTE FUNCTION memlane_bump_revision();
CREATE CONSTRAINT TRIGGER episodes_revision AFTER INSERT OR UPDATE OR DELETE ON episodes
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION memlane_bump_revision();
"""

SQLITE = Migration(6, "revision counter", _SQLITE)
POSTGRES = Migration(6, "revision counter", _POSTGRES)
