-- Placeholder for version 7, so that version 8 runs on a branch without it. Version 7 is the webhook events'
-- migration of another branch: when both are merged, this file goes and that one stays.
SELECT 1;
