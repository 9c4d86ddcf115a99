-- Placeholder for version 6, so that version 8 runs on a branch without it. Version 6 is the triage rounds'
-- migration of another branch: when both are merged, this file goes and that one stays.
SELECT 1;
