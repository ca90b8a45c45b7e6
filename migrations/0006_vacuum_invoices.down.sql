-- Nothing to undo: 0006 only vacuums.
SELECT 1;
