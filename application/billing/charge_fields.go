package billing

import (
	"strconv"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/billing"
)

// ChargeFieldError is a field of an operator's charge (`charges add`, the
// console's charge form) that is malformed: Problem says what it must be.
type ChargeFieldError struct {
	Field   string // quantity, unitCost or date
	Problem string
}

func (e *ChargeFieldError) Error() string { return e.Field + " " + e.Problem }

// ParseChargeFields checks an operator's charge's fields as typed, before
// AddCharge is asked: a quantity above 0 with at most three decimals, a
// unit cost in whole cents other than 0, a date YYYY-MM-DD or none. It
// returns the unit cost.
func ParseChargeFields(quantity, unitCost, date string) (int64, error) {
	if q, err := domain.ParseQuantity(quantity); err != nil || q.Milli() == 0 {
		return 0, &ChargeFieldError{Field: "quantity", Problem: "is not a quantity above 0 with at most three decimals"}
	}
	cents, err := strconv.ParseInt(unitCost, 10, 64)
	if err != nil || cents == 0 {
		return 0, &ChargeFieldError{Field: "unitCost", Problem: "is not a whole number of cents other than 0"}
	}
	if date != "" {
		if _, err := billing.ParseDate(date); err != nil {
			return 0, &ChargeFieldError{Field: "date", Problem: "is not a date YYYY-MM-DD"}
		}
	}
	return cents, nil
}
