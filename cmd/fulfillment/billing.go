package main

// Billing's commands (docs/billing.md): `rates set`, `billing run`,
// `billing close`, `invoices preview`, `invoices status`, `charges add`.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/acme3pl/fulfillment/adapters/apiview"
	"github.com/acme3pl/fulfillment/adapters/fixture"
	billingapp "github.com/acme3pl/fulfillment/application/billing"
	"github.com/acme3pl/fulfillment/bootstrap"
	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// withBilling runs fn with billing's use cases on the database at
// DATABASE_URL, without spans and log lines: the command prints its own.
func withBilling(ctx context.Context, cfg bootstrap.Config, fn func(ctx context.Context, uc *billingapp.UseCases) error) error {
	return command(ctx, cfg, 4, fn)
}

func rates(ctx context.Context, cfg bootstrap.Config, args []string, stdout io.Writer) error {
	fs, org, err := orgSubcommand("rates", "set", args)
	if err != nil {
		return err
	}
	file := fs.String("file", "", "rate card (JSON)")
	actor := actorFlag(fs)
	if err := parseCommand(fs, args[1:], "rates set needs --org ID --file card.json [--actor NAME]", "org", "file"); err != nil {
		return err
	}
	if err := checkActor("rates set", actor()); err != nil {
		return err
	}
	f, err := os.Open(*file)
	if err != nil {
		return fmt.Errorf("rates set: %w", err)
	}
	defer func() { _ = f.Close() }()
	p, err := fixture.DecodeRateCard(f)
	if err != nil {
		return fmt.Errorf("rates set %s: %w", *file, err)
	}
	if p.OrganizationID == "" {
		p.OrganizationID = *org
	}
	if p.OrganizationID != *org {
		return fmt.Errorf("rates set: the card is for %q, not --org %q", p.OrganizationID, *org)
	}
	return withBilling(ctx, cfg, func(ctx context.Context, uc *billingapp.UseCases) error {
		card, err := uc.SetRateCard.Handle(ctx, billingapp.SetRateCard{Card: p, Actor: actor()})
		if err != nil {
			return fmt.Errorf("rates set: %w", err)
		}
		fmt.Fprintf(stdout, "rate card of %s set from %s (%s)\n", card.OrganizationID(), card.EffectiveFrom(), cfg.BillingLocation)
		return nil
	})
}

func billingCmd(ctx context.Context, cfg bootstrap.Config, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return usagef("billing takes one of run, close")
	}
	switch args[0] {
	case "run":
		if len(args) > 1 {
			return usagef("billing run takes no arguments")
		}
		return withBilling(ctx, cfg, func(ctx context.Context, uc *billingapp.UseCases) error {
			res, err := uc.RunBilling.Handle(ctx, billingapp.RunBilling{})
			for _, f := range res.Finalized {
				if f.Key != "" { // one line per invoice; periods without one count in the summary
					printFinalized(stdout, cfg, f)
				}
			}
			if err != nil {
				return fmt.Errorf("billing run: %w", err)
			}
			charges := 0
			for _, n := range res.Charges {
				charges += n
			}
			fmt.Fprintf(stdout, "billing run: %d invoices finalized (%d periods closed), %d charges accrued, %d invoices moved to collecting\n",
				res.Invoices(), len(res.Finalized), charges, len(res.Collected))
			return nil
		})
	case "close":
		fs := newFlagSet("billing close")
		org := fs.String("org", "", "organization ID")
		actor := actorFlag(fs)
		if err := parseCommand(fs, args[1:], "billing close needs --org ID [--actor NAME]", "org"); err != nil {
			return err
		}
		if err := checkActor("billing close", actor()); err != nil {
			return err
		}
		return withBilling(ctx, cfg, func(ctx context.Context, uc *billingapp.UseCases) error {
			closed, err := uc.ClosePeriod.Handle(ctx, billingapp.ClosePeriod{OrganizationID: *org, Actor: actor()})
			if err != nil {
				return fmt.Errorf("billing close: %w", err)
			}
			for _, f := range closed.All() {
				printFinalized(stdout, cfg, f)
			}
			return nil
		})
	}
	return usagef("billing: unknown subcommand %q (run, close)", args[0])
}

// printFinalized prints one line per finalized period: the key, the
// invoice, the organization, the period and the total.
func printFinalized(w io.Writer, cfg bootstrap.Config, f billingports.FinalizedInvoice) {
	name := cfg.Billing().Calendar.Name(f.Period)
	if f.Key == "" {
		fmt.Fprintf(w, "closed %s %s: nothing billed, no invoice\n", f.OrganizationID, name)
		return
	}
	fmt.Fprintf(w, "finalized %s %s %s %s: %d lines, %s\n", f.Key, f.InvoiceID, f.OrganizationID, name, f.Lines,
		billing.Dollars(f.TotalAmount))
}

func invoicesCmd(ctx context.Context, cfg bootstrap.Config, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return usagef("invoices takes one of preview, status")
	}
	switch args[0] {
	case "preview":
		fs := newFlagSet("invoices preview")
		org := fs.String("org", "", "organization ID")
		withCharges := fs.Bool("charges", false, "print the open invoice's charges instead, as GET /v0/invoices/{id}/charges lists them")
		if err := parseCommand(fs, args[1:], "invoices preview needs --org ID [--charges]", "org"); err != nil {
			return err
		}
		return withBilling(ctx, cfg, func(ctx context.Context, uc *billingapp.UseCases) error {
			q := billingapp.PreviewInvoices{OrganizationID: *org}
			charges := []apiview.Charge{}
			if *withCharges {
				q.Charges = func(c invoicingports.InvoiceCharge) error {
					dto, err := apiview.ChargeOf(c)
					charges = append(charges, dto)
					return err
				}
			}
			invs, err := uc.PreviewInvoices.Handle(ctx, q)
			if err != nil {
				return fmt.Errorf("invoices preview: %w", err)
			}
			if *withCharges {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(charges)
			}
			out := make([]apiview.Invoice, 0, len(invs))
			for _, inv := range invs {
				out = append(out, apiview.InvoiceOf(inv))
			}
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(out) // as GET /v0/invoices lists them
		})
	case "status":
		fs := newFlagSet("invoices status")
		id := fs.String("id", "", "invoice ID")
		to := fs.String("to", "", "the new status")
		actor := actorFlag(fs)
		if err := parseCommand(fs, args[1:], "invoices status needs --id ID --to STATUS [--actor NAME]", "id", "to"); err != nil {
			return err
		}
		if err := checkActor("invoices status", actor()); err != nil {
			return err
		}
		if _, err := invoicing.ParseVisibleInvoiceStatus(*to); err != nil {
			return usagef("invoices status: --to %q is not a status (one of %s)", *to, visibleStatuses())
		}
		return withBilling(ctx, cfg, func(ctx context.Context, uc *billingapp.UseCases) error {
			from, err := uc.ChangeInvoiceStatus.Handle(ctx, billingapp.ChangeInvoiceStatus{InvoiceID: *id, To: *to, Actor: actor()})
			if err != nil {
				return fmt.Errorf("invoices status %s: %w", *id, err)
			}
			fmt.Fprintf(stdout, "invoice %s: %s → %s\n", *id, from, *to)
			return nil
		})
	}
	return usagef("invoices: unknown subcommand %q (preview, status)", args[0])
}

func charges(ctx context.Context, cfg bootstrap.Config, args []string, stdout io.Writer) error {
	fs, org, err := orgSubcommand("charges", "add", args)
	if err != nil {
		return err
	}
	ref := fs.String("reference", "", "the charge's reference (once per organization)")
	title := fs.String("title", "", "the line's title")
	qty := fs.String("quantity", "", "quantity, up to three decimals")
	cost := fs.String("unit-cost", "", "cents per unit; negative for a credit")
	desc := fs.String("description", "", "the line's description")
	date := fs.String("date", "", "YYYY-MM-DD (default today)")
	actor := actorFlag(fs)
	const needs = "charges add needs --org ID --reference REF --title T --quantity Q --unit-cost C [--description D] [--date YYYY-MM-DD] [--actor NAME]"
	if err := parseCommand(fs, args[1:], needs, "org", "reference", "title", "quantity", "unit-cost"); err != nil {
		return err
	}
	if err := checkActor("charges add", actor()); err != nil {
		return err
	}
	// A value not of its flag's form is bad usage (exit 2); what the rules
	// refuse of a well-formed charge (the bounds, a reference used with
	// other content, a closed or unknown organization's period) exits 1.
	unitCost, err := billingapp.ParseChargeFields(*qty, *cost, *date)
	if bad := (*billingapp.ChargeFieldError)(nil); errors.As(err, &bad) {
		flag := map[string][2]string{"quantity": {"quantity", *qty}, "unitCost": {"unit-cost", *cost}, "date": {"date", *date}}[bad.Field]
		return usagef("charges add: --%s %q %s", flag[0], flag[1], bad.Problem)
	}
	return withBilling(ctx, cfg, func(ctx context.Context, uc *billingapp.UseCases) error {
		res, err := uc.AddCharge.Handle(ctx, billingapp.AddCharge{OrganizationID: *org, Reference: *ref, Title: *title,
			Description: *desc, Quantity: *qty, UnitCost: unitCost, Date: *date, Actor: actor()})
		if err != nil {
			return fmt.Errorf("charges add: %w", err)
		}
		switch {
		case !res.Added:
			fmt.Fprintf(stdout, "charge %s of %s unchanged: recorded before with the same content, nothing changed\n", *ref, *org)
		case res.ForPeriod != "":
			fmt.Fprintf(stdout, "charge %s of %s recorded on the open invoice, for %s\n", *ref, *org, res.ForPeriod)
		default:
			fmt.Fprintf(stdout, "charge %s of %s recorded on the open invoice\n", *ref, *org)
		}
		return nil
	})
}

// visibleStatuses lists the statuses `invoices status --to` takes.
func visibleStatuses() string {
	names := make([]string, len(invoicing.VisibleInvoiceStatuses))
	for i, st := range invoicing.VisibleInvoiceStatuses {
		names[i] = string(st)
	}
	return strings.Join(names, ", ")
}
