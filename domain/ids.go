package domain

// ValidID reports whether s has the shape of every ID the service makes or
// accepts from a fixture: a letter or digit, then letters, digits, '_' or
// '-', at most 64 bytes in all (the pattern ^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$,
// checked byte by byte: it runs on every lookup). An ID of any other shape
// cannot name a record, so lookups answer not found without asking the
// database.
func ValidID(s string) bool {
	if len(s) == 0 || len(s) > 64 || s[0] == '_' || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !idByte(s[i]) {
			return false
		}
	}
	return true
}

func idByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}
