package postgres

import "strings"

// allStatements are the kit's repositories' statements by name (the
// context packages' are their Statements: statement_texts_test.go).
func allStatements() map[string]statement {
	all := map[string]statement{
		"appliedMigrationsSQL":   appliedMigrationsSQL,
		"appendAuditSQL":         appendAuditSQL,
		"listAuditSQL":           listAuditSQL,
		"migrationLockSQL":       migrationLockSQL,
		"migrationUnlockSQL":     migrationUnlockSQL,
		"activeWarehouseSQL":     activeWarehouseSQL,
		"activeWarehousesSQL":    activeWarehousesSQL,
		"availableWarehousesSQL": availableWarehousesSQL,
		"claimEventsSQL":         claimEventsSQL,
		"deleteEventsSQL":        deleteEventsSQL,
		"insertEventsSQL":        insertEventsSQL,
		"organizationSQL":        organizationSQL,
		"pendingShipmentsSQL":    pendingShipmentsSQL,
		"openPeriodsEndedBySQL":  openPeriodsEndedBySQL,
		"outboxBacklogSQL":       outboxBacklogSQL,
		"pageAuditSQL":           pageAuditSQL,
		"organizationsSQL":       organizationsSQL,
		"outboxStatsSQL":         outboxStatsSQL,
		"assertRecordingSQL":     assertRecordingSQL,
		"withdrawRecordingSQL":   withdrawRecordingSQL,
		"recordingSQL":           recordingSQL,
		"warehouseActiveSQL":     warehouseActiveSQL,
	}
	return all
}

// operation is a statement's SQL command, the span's name: its first word,
// or, after WITH, the first command outside the parentheses of its
// common table expressions. (bun's QueryEvent.Operation, the first word,
// would name the intake's statements WITH.)
func operation(text string) string {
	depth, first := 0, true
	for _, f := range strings.FieldsFunc(text, func(c rune) bool { return c == ' ' || c == '\n' || c == '\t' || c == ',' }) {
		trimmed := strings.TrimLeft(f, "(")
		depth += len(f) - len(trimmed) // parentheses before the word enclose it
		word := strings.ToUpper(strings.TrimRight(trimmed, "()"))
		if depth == 0 && (first && word != "WITH" || !first && isCommand(word)) {
			return word
		}
		first = false
		depth += strings.Count(trimmed, "(") - strings.Count(trimmed, ")")
	}
	return "SQL"
}

func isCommand(word string) bool {
	switch word {
	case "SELECT", "INSERT", "UPDATE", "DELETE":
		return true
	}
	return false
}
