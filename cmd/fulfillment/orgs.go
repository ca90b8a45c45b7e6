package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/bootstrap"
	"github.com/acme3pl/fulfillment/domain"
)

const orgsLimitUsage = "orgs limit needs --org ID and either --rate 50/s [--burst 100] or --default [--actor NAME]"

// orgs runs `orgs limit --org ID --rate 50/s [--burst 100]`, an
// organization's own rate limit of the API, and `orgs limit --org ID
// --default`, back to the default limit; every replica applies either
// within a second (docs/rate-limits.md).
func orgs(ctx context.Context, cfg bootstrap.Config, args []string, stdout io.Writer) error {
	fs, org, err := orgSubcommand("orgs", "limit", args)
	if err != nil {
		return err
	}
	rate := fs.String("rate", "", "requests per second, minute or hour: 50/s, 600/m, 10000/h")
	burst := fs.Int("burst", 0, "requests at once, 1 or more (default twice the rate's count)")
	toDefault := fs.Bool("default", false, "remove the organization's own limit: it has the default again")
	actor := actorFlag(fs)
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	burstSet := false
	fs.Visit(func(f *flag.Flag) { burstSet = burstSet || f.Name == "burst" })
	if !domain.ValidID(*org) || fs.NArg() > 0 || *toDefault == (*rate != "") || *toDefault && burstSet {
		return usagef(orgsLimitUsage)
	}
	if err := checkActor("orgs limit", actor()); err != nil {
		return err
	}
	c := application.SetOrganizationLimit{OrganizationID: *org, Actor: actor()}
	said := "the default limit"
	if !*toDefault {
		// A burst given is 1 or more: 0 is not "the default" (leave --burst
		// out for that).
		if burstSet && *burst < 1 {
			return usagef("orgs limit: --burst %d: a burst is 1 or more (leave --burst out for twice the rate's count)", *burst)
		}
		limit, err := domain.ParseRateLimit(*rate, *burst)
		if err != nil {
			return usagef("orgs limit: %v", err)
		}
		c.Limit, said = &limit, limit.String()
	}
	return withAppConns(ctx, cfg, 2, func(ctx context.Context, app *application.UseCases) error {
		if _, err := app.SetOrganizationLimit.Handle(ctx, c); err != nil {
			return fmt.Errorf("orgs limit %s: %w", *org, err)
		}
		fmt.Fprintf(stdout, "organization %s: %s\n", *org, said)
		return nil
	})
}
