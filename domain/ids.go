package domain

import "regexp"

// idPattern is the shape of every ID the service makes or accepts from a
// fixture: a short prefix and letters, digits, '_' or '-', at most 64 bytes.
// An ID of any other shape cannot name a record, so lookups answer not found
// without asking the database.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_\-]{0,63}$`)

// ValidID reports whether s has the shape of an ID.
func ValidID(s string) bool { return idPattern.MatchString(s) }
