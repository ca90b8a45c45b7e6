package api

// ConvertToJSON exposes the YAML-to-JSON conversion to tests of other documents.
var ConvertToJSON = toJSON
