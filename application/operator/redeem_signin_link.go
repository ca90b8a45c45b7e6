package operator

import (
	"context"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain/operator"
	"github.com/acme3pl/fulfillment/ports"
	operatorports "github.com/acme3pl/fulfillment/ports/operator"
)

// RedeemSignInLink uses the link of Token and starts its session.
type RedeemSignInLink struct {
	Token string
}

// NewRedeemSignInLinkHandler builds the handler. The link is marked used
// and the session stored in one transaction: of concurrent redeems of one
// link exactly one starts a session, and a link whose session could not be
// stored stays unused. An unknown, used or expired link is refused
// (accessports.ErrInvalidCredentials, operator.ErrLinkRefused), telling none
// apart.
func NewRedeemSignInLinkHandler(uow ports.UnitOfWork[operatorports.Repositories], clock ports.Clock) application.HandlerFunc[RedeemSignInLink, Started] {
	return func(ctx context.Context, c RedeemSignInLink) (Started, error) {
		if !operator.WellFormedSecret(c.Token) {
			return Started{}, errLinkRefused
		}
		var out Started
		err := uow.Do(ctx, func(ctx context.Context, r operatorports.Repositories) error {
			now := clock.Now()
			link, ok, err := r.OperatorSessions.UseLink(ctx, operator.HashSecret(c.Token), now)
			if err != nil {
				return err
			}
			if !ok || !link.Usable(now) {
				return errLinkRefused
			}
			s, err := operator.NewSession(link.Principal, now)
			if err != nil {
				return err
			}
			out, err = newSession(ctx, r.OperatorSessions, s)
			return err
		})
		return out, err
	}
}
