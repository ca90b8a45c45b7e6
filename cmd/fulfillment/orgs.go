package main

import (
	"context"
	"fmt"
	"io"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/bootstrap"
	"github.com/acme3pl/fulfillment/domain"
)

// orgs runs `orgs limit --org ID --rate 50/s [--burst 100]`: an
// organization's own rate limit of the API, which every replica applies
// within a second (docs/rate-limits.md).
func orgs(ctx context.Context, cfg bootstrap.Config, args []string, stdout io.Writer) error {
	fs, org, err := orgSubcommand("orgs", "limit", args)
	if err != nil {
		return err
	}
	rate := fs.String("rate", "", "requests per second, minute or hour: 50/s, 600/m, 10000/h")
	burst := fs.Int("burst", 0, "requests at once (default twice the rate's count)")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if !domain.ValidID(*org) || *rate == "" || fs.NArg() > 0 {
		return usagef("orgs limit needs --org ID --rate 50/s [--burst 100]")
	}
	limit, err := domain.ParseRateLimit(*rate, *burst)
	if err != nil {
		return usagef("orgs limit: %v", err)
	}
	return command(ctx, cfg, 2, func(ctx context.Context, limits *postgres.OrganizationRateLimits) error {
		if err := limits.SetRateLimit(ctx, *org, limit); err != nil {
			return fmt.Errorf("orgs limit %s: %w", *org, err)
		}
		fmt.Fprintf(stdout, "organization %s: %s\n", *org, limit)
		return nil
	})
}
