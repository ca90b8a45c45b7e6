// Package audit declares the audit log of the operators' actions
// (docs/audit.md) and the Trail an audited action writes its record to,
// which the Repositories of every context the operators act on embed.
// Imported as auditports.
package audit
