--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: iap_id_is_not_taken(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.iap_id_is_not_taken() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  IF TG_TABLE_NAME = 'receipts' AND EXISTS (SELECT 1 FROM apple_notifications WHERE id = NEW.id) THEN
    RAISE EXCEPTION 'id is already an Apple notification''s' USING ERRCODE = 'check_violation';
  ELSIF TG_TABLE_NAME = 'apple_notifications' AND EXISTS (SELECT 1 FROM receipts WHERE id = NEW.id) THEN
    RAISE EXCEPTION 'id is already a receipt''s' USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: account_flags; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.account_flags (
    id bigint NOT NULL,
    account_id text NOT NULL,
    reason text NOT NULL,
    currency text NOT NULL,
    amount bigint NOT NULL,
    transaction_id text NOT NULL,
    notification_id text,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT account_flags_currency_check CHECK ((length(currency) > 0)),
    CONSTRAINT account_flags_reason_check CHECK ((reason = ANY (ARRAY['negative_balance'::text, 'refund_shortfall'::text])))
);


--
-- Name: account_flags_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.account_flags ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.account_flags_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: accounts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.accounts (
    id text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT accounts_id_check CHECK (((length(id) >= 1) AND (length(id) <= 128)))
);


--
-- Name: app_account_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.app_account_tokens (
    token text NOT NULL,
    account_id text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT app_account_tokens_token_check CHECK (((length(token) = 36) AND (token = lower(token))))
);


--
-- Name: apple_notifications; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.apple_notifications (
    id text NOT NULL,
    payload text NOT NULL,
    payload_hash text NOT NULL,
    status text NOT NULL,
    reason text,
    attempts integer DEFAULT 0 NOT NULL,
    notification_uuid text,
    type text,
    subtype text,
    environment text,
    signed_date timestamp with time zone,
    transaction_id text,
    original_transaction_id text,
    product_id text,
    account_id text,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    published_at timestamp with time zone,
    store text DEFAULT 'apple'::text NOT NULL,
    message_id text,
    CONSTRAINT apple_notifications_attempts_check CHECK ((attempts >= 0)),
    CONSTRAINT apple_notifications_check CHECK (((status <> ALL (ARRAY['rejected'::text, 'dead'::text])) OR (reason IS NOT NULL))),
    CONSTRAINT apple_notifications_check1 CHECK (((notification_uuid IS NULL) OR (status = 'applied'::text))),
    CONSTRAINT apple_notifications_id_check CHECK (((length(id) >= 1) AND (length(id) <= 128))),
    CONSTRAINT apple_notifications_message_id_check CHECK (((length(message_id) >= 1) AND (length(message_id) <= 128))),
    CONSTRAINT apple_notifications_notification_uuid_check CHECK ((length(notification_uuid) > 0)),
    CONSTRAINT apple_notifications_payload_check CHECK ((length(payload) > 0)),
    CONSTRAINT apple_notifications_payload_hash_check CHECK ((payload_hash ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT apple_notifications_status_check CHECK ((status = ANY (ARRAY['received'::text, 'validating'::text, 'retrying'::text, 'applied'::text, 'rejected'::text, 'dead'::text]))),
    CONSTRAINT apple_notifications_store_check CHECK ((store = ANY (ARRAY['apple'::text, 'google'::text])))
);


--
-- Name: apple_transactions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.apple_transactions (
    transaction_id text NOT NULL,
    original_transaction_id text NOT NULL,
    product_id text NOT NULL,
    quantity integer NOT NULL,
    environment text,
    receipt_id text,
    notification_id text,
    account_id text,
    purchase_date timestamp with time zone,
    expires_date timestamp with time zone,
    cancellation_date timestamp with time zone,
    state text NOT NULL,
    entitlement text,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    catalog_product_id text,
    order_id text,
    binding text,
    CONSTRAINT apple_transactions_binding_check CHECK ((binding = ANY (ARRAY['order'::text, 'app_account_token'::text, 'original_transaction'::text, 'submitter'::text]))),
    CONSTRAINT apple_transactions_check CHECK (((state <> 'credited'::text) OR (account_id IS NOT NULL))),
    CONSTRAINT apple_transactions_check1 CHECK (((receipt_id IS NOT NULL) OR (notification_id IS NOT NULL))),
    CONSTRAINT apple_transactions_entitlement_check CHECK ((length(entitlement) > 0)),
    CONSTRAINT apple_transactions_quantity_check CHECK ((quantity >= 1)),
    CONSTRAINT apple_transactions_state_check CHECK ((state = ANY (ARRAY['credited'::text, 'refunded'::text, 'revoked'::text, 'unpaid'::text]))),
    CONSTRAINT apple_transactions_transaction_id_check CHECK ((length(transaction_id) > 0))
);


--
-- Name: balances; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.balances (
    account_id text NOT NULL,
    currency text NOT NULL,
    amount bigint NOT NULL,
    CONSTRAINT balances_currency_check CHECK ((length(currency) > 0))
);


--
-- Name: binding_conflicts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.binding_conflicts (
    id bigint NOT NULL,
    transaction_id text NOT NULL,
    original_transaction_id text NOT NULL,
    receipt_id text,
    claimant_account_id text NOT NULL,
    credited_account_id text NOT NULL,
    binding text NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: binding_conflicts_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.binding_conflicts ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.binding_conflicts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: call_budget_seconds; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.call_budget_seconds (
    name text NOT NULL,
    second bigint NOT NULL,
    calls bigint NOT NULL,
    CONSTRAINT call_budget_seconds_calls_check CHECK ((calls > 0))
);


--
-- Name: call_budgets; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.call_budgets (
    name text NOT NULL,
    next_slot_us bigint DEFAULT 0 NOT NULL,
    paused_until_us bigint DEFAULT 0 NOT NULL,
    limit_per_second double precision NOT NULL,
    per_second double precision NOT NULL,
    CONSTRAINT call_budgets_limit_per_second_check CHECK ((limit_per_second > (0)::double precision)),
    CONSTRAINT call_budgets_per_second_check CHECK ((per_second > (0)::double precision))
);


--
-- Name: consumption_answers; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.consumption_answers (
    notification_id text NOT NULL,
    transaction_id text NOT NULL,
    account_id text,
    status text NOT NULL,
    reason text,
    body text,
    apple_status bigint,
    tenure_days bigint,
    attempts bigint NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    CONSTRAINT consumption_answers_attempts_check CHECK ((attempts >= 0)),
    CONSTRAINT consumption_answers_status_check CHECK ((status = ANY (ARRAY['sent'::text, 'withheld'::text, 'failed'::text])))
);


--
-- Name: consumption_consents; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.consumption_consents (
    account_id text NOT NULL,
    status text NOT NULL,
    recorded_at timestamp with time zone NOT NULL,
    CONSTRAINT consumption_consents_status_check CHECK ((status = ANY (ARRAY['granted'::text, 'withdrawn'::text])))
);


--
-- Name: dead_letters; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.dead_letters (
    id text NOT NULL,
    receipt_id text,
    account_id text,
    reason text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    last_error text,
    source_queue text,
    body bytea NOT NULL,
    headers text NOT NULL,
    dead_at timestamp with time zone NOT NULL,
    status text NOT NULL,
    resolved_by text,
    resolved_reason text,
    resolved_at timestamp with time zone,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT dead_letters_attempts_check CHECK ((attempts >= 0)),
    CONSTRAINT dead_letters_check CHECK (((status <> 'discarded'::text) OR ((resolved_by IS NOT NULL) AND (length(resolved_reason) > 0)))),
    CONSTRAINT dead_letters_check1 CHECK (((status <> 'replayed'::text) OR (resolved_at IS NOT NULL))),
    CONSTRAINT dead_letters_headers_check CHECK (((headers)::jsonb IS NOT NULL)),
    CONSTRAINT dead_letters_id_check CHECK (((length(id) >= 1) AND (length(id) <= 128))),
    CONSTRAINT dead_letters_reason_check CHECK ((length(reason) > 0)),
    CONSTRAINT dead_letters_receipt_id_check CHECK (((length(receipt_id) >= 1) AND (length(receipt_id) <= 128))),
    CONSTRAINT dead_letters_status_check CHECK ((status = ANY (ARRAY['waiting'::text, 'replaying'::text, 'replayed'::text, 'discarded'::text])))
);


--
-- Name: entitlements; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.entitlements (
    account_id text NOT NULL,
    name text NOT NULL,
    expires_at timestamp with time zone,
    original_transaction_id text,
    updated_at timestamp with time zone NOT NULL,
    CONSTRAINT entitlements_name_check CHECK ((length(name) > 0))
);


--
-- Name: google_acknowledgements; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.google_acknowledgements (
    purchase_token text NOT NULL,
    package_name text NOT NULL,
    product_id text NOT NULL,
    action text NOT NULL,
    receipt_id text,
    status text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone,
    last_error text,
    created_at timestamp with time zone NOT NULL,
    done_at timestamp with time zone,
    CONSTRAINT google_acknowledgements_action_check CHECK ((action = ANY (ARRAY['consume'::text, 'acknowledge'::text, 'acknowledge_subscription'::text]))),
    CONSTRAINT google_acknowledgements_purchase_token_check CHECK ((length(purchase_token) > 0)),
    CONSTRAINT google_acknowledgements_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'done'::text, 'failed'::text])))
);


--
-- Name: google_voided_polls; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.google_voided_polls (
    package_name text NOT NULL,
    polled_until timestamp with time zone NOT NULL
);


--
-- Name: iap_schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.iap_schema_migrations (
    version integer NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: ledger_entries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.ledger_entries (
    id bigint NOT NULL,
    account_id text NOT NULL,
    currency text NOT NULL,
    amount bigint NOT NULL,
    kind text NOT NULL,
    receipt_id text,
    notification_id text,
    transaction_id text,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT ledger_entries_amount_check CHECK ((amount <> 0)),
    CONSTRAINT ledger_entries_check CHECK (((kind <> 'purchase'::text) OR ((amount > 0) AND (transaction_id IS NOT NULL)))),
    CONSTRAINT ledger_entries_check1 CHECK (((kind <> ALL (ARRAY['refund'::text, 'revoke'::text])) OR ((amount < 0) AND (transaction_id IS NOT NULL)))),
    CONSTRAINT ledger_entries_check2 CHECK (((kind <> 'refund_reversal'::text) OR ((amount > 0) AND (transaction_id IS NOT NULL)))),
    CONSTRAINT ledger_entries_currency_check CHECK ((length(currency) > 0)),
    CONSTRAINT ledger_entries_kind_check CHECK ((kind = ANY (ARRAY['purchase'::text, 'refund'::text, 'revoke'::text, 'refund_reversal'::text, 'adjustment'::text, 'write_off'::text]))),
    CONSTRAINT ledger_entries_write_off_check CHECK (((kind <> 'write_off'::text) OR ((amount > 0) AND (transaction_id IS NOT NULL))))
);


--
-- Name: ledger_entries_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.ledger_entries ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.ledger_entries_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: manual_adjustments; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.manual_adjustments (
    id text NOT NULL,
    idempotency_key text NOT NULL,
    account_id text NOT NULL,
    kind text NOT NULL,
    currency text,
    amount bigint,
    entitlement text,
    expires_at timestamp with time zone,
    reason text NOT NULL,
    operator text NOT NULL,
    balance bigint,
    written_off bigint,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT manual_adjustments_check CHECK (((kind <> 'currency'::text) OR ((currency IS NOT NULL) AND (amount IS NOT NULL) AND (amount <> 0)))),
    CONSTRAINT manual_adjustments_check1 CHECK (((kind <> 'entitlement'::text) OR ((entitlement IS NOT NULL) AND (expires_at IS NOT NULL)))),
    CONSTRAINT manual_adjustments_kind_check CHECK ((kind = ANY (ARRAY['currency'::text, 'entitlement'::text]))),
    CONSTRAINT manual_adjustments_operator_check CHECK ((length(operator) > 0)),
    CONSTRAINT manual_adjustments_reason_check CHECK ((length(TRIM(BOTH FROM reason)) > 0))
);


--
-- Name: notification_outbox; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.notification_outbox (
    id text NOT NULL,
    type text NOT NULL,
    receipt_id text,
    notification_id text,
    account_id text NOT NULL,
    body text NOT NULL,
    status text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone,
    last_error text,
    created_at timestamp with time zone NOT NULL,
    delivered_at timestamp with time zone,
    CONSTRAINT notification_outbox_attempts_check CHECK ((attempts >= 0)),
    CONSTRAINT notification_outbox_body_check CHECK (((body)::jsonb IS NOT NULL)),
    CONSTRAINT notification_outbox_check CHECK (((status <> 'pending'::text) OR (next_attempt_at IS NOT NULL))),
    CONSTRAINT notification_outbox_check1 CHECK (((status = 'delivered'::text) = (delivered_at IS NOT NULL))),
    CONSTRAINT notification_outbox_id_check CHECK ((length(id) > 0)),
    CONSTRAINT notification_outbox_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'delivered'::text, 'failed'::text]))),
    CONSTRAINT notification_outbox_type_check CHECK ((type = ANY (ARRAY['receipt.credited'::text, 'receipt.rejected'::text, 'receipt.dead'::text, 'purchase.refunded'::text, 'purchase.refund_reversed'::text, 'subscription.renewed'::text, 'subscription.expired'::text, 'account.adjusted'::text, 'entitlement.granted'::text])))
);


--
-- Name: orders; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.orders (
    id text NOT NULL,
    account_id text NOT NULL,
    product_id text NOT NULL,
    apple_product_id text NOT NULL,
    app_account_token text NOT NULL,
    first_purchase boolean NOT NULL,
    status text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    closed_at timestamp with time zone,
    close_reason text,
    receipt_id text,
    transaction_id text,
    credited_product_id text,
    CONSTRAINT orders_check CHECK (((status = 'open'::text) = (closed_at IS NULL))),
    CONSTRAINT orders_check1 CHECK (((status <> ALL (ARRAY['fulfilled'::text, 'mismatched'::text])) OR (transaction_id IS NOT NULL))),
    CONSTRAINT orders_id_check CHECK (((length(id) >= 1) AND (length(id) <= 128))),
    CONSTRAINT orders_product_id_check CHECK ((length(product_id) > 0)),
    CONSTRAINT orders_status_check CHECK ((status = ANY (ARRAY['open'::text, 'fulfilled'::text, 'mismatched'::text, 'cancelled'::text, 'expired'::text])))
);


--
-- Name: receipt_transactions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.receipt_transactions (
    seq bigint NOT NULL,
    receipt_id text NOT NULL,
    transaction_id text NOT NULL,
    product_id text NOT NULL,
    outcome text NOT NULL,
    currency text,
    amount bigint,
    entitlement text,
    expires_at timestamp with time zone,
    CONSTRAINT receipt_transactions_check CHECK (((currency IS NULL) = (amount IS NULL))),
    CONSTRAINT receipt_transactions_check1 CHECK (((outcome <> 'credited'::text) OR (currency IS NOT NULL) OR (entitlement IS NOT NULL))),
    CONSTRAINT receipt_transactions_check2 CHECK (((outcome = 'credited'::text) OR ((currency IS NULL) AND (entitlement IS NULL)))),
    CONSTRAINT receipt_transactions_outcome_check CHECK ((outcome = ANY (ARRAY['credited'::text, 'already_credited'::text, 'unknown_product'::text, 'refunded'::text, 'bound_to_another_account'::text]))),
    CONSTRAINT receipt_transactions_transaction_id_check CHECK ((length(transaction_id) > 0))
);


--
-- Name: receipt_transactions_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.receipt_transactions ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.receipt_transactions_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: receipts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.receipts (
    id text NOT NULL,
    account_id text NOT NULL,
    kind text NOT NULL,
    payload text NOT NULL,
    payload_hash text NOT NULL,
    order_id text,
    product_id text,
    status text NOT NULL,
    reason text,
    attempts integer DEFAULT 0 NOT NULL,
    environment text,
    idempotency_key text,
    request_hash text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    published_at timestamp with time zone,
    CONSTRAINT receipts_attempts_check CHECK ((attempts >= 0)),
    CONSTRAINT receipts_check CHECK (((status <> ALL (ARRAY['rejected'::text, 'dead'::text])) OR (reason IS NOT NULL))),
    CONSTRAINT receipts_id_check CHECK (((length(id) >= 1) AND (length(id) <= 128))),
    CONSTRAINT receipts_idempotency_key_check CHECK (((length(idempotency_key) >= 1) AND (length(idempotency_key) <= 255))),
    CONSTRAINT receipts_kind_check CHECK ((kind = ANY (ARRAY['legacy'::text, 'storekit2'::text, 'google_play'::text]))),
    CONSTRAINT receipts_payload_check CHECK ((length(payload) > 0)),
    CONSTRAINT receipts_payload_hash_check CHECK ((payload_hash ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT receipts_request_hash_check CHECK ((request_hash ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT receipts_status_check CHECK ((status = ANY (ARRAY['received'::text, 'validating'::text, 'retrying'::text, 'credited'::text, 'rejected'::text, 'dead'::text])))
);


--
-- Name: reconciliation_runs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.reconciliation_runs (
    id bigint NOT NULL,
    trigger text NOT NULL,
    mode text NOT NULL,
    window_start timestamp with time zone NOT NULL,
    window_end timestamp with time zone NOT NULL,
    examined bigint NOT NULL,
    missing bigint NOT NULL,
    fed bigint NOT NULL,
    error text,
    started_at timestamp with time zone NOT NULL,
    finished_at timestamp with time zone NOT NULL,
    CONSTRAINT reconciliation_runs_examined_check CHECK ((examined >= 0)),
    CONSTRAINT reconciliation_runs_fed_check CHECK ((fed >= 0)),
    CONSTRAINT reconciliation_runs_missing_check CHECK ((missing >= 0)),
    CONSTRAINT reconciliation_runs_mode_check CHECK ((mode = ANY (ARRAY['apply'::text, 'dry_run'::text]))),
    CONSTRAINT reconciliation_runs_trigger_check CHECK ((trigger = ANY (ARRAY['schedule'::text, 'operator'::text])))
);


--
-- Name: reconciliation_runs_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.reconciliation_runs ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.reconciliation_runs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: subscription_checks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.subscription_checks (
    id text NOT NULL,
    original_transaction_id text NOT NULL,
    account_id text NOT NULL,
    entitlement text NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    phase text NOT NULL,
    due_at timestamp with time zone NOT NULL,
    status text NOT NULL,
    outcome text,
    reason text,
    receipt_id text,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    published_at timestamp with time zone,
    CONSTRAINT subscription_checks_id_check CHECK (((length(id) >= 1) AND (length(id) <= 128))),
    CONSTRAINT subscription_checks_phase_check CHECK ((phase = ANY (ARRAY['before'::text, 'after'::text]))),
    CONSTRAINT subscription_checks_status_check CHECK ((status = ANY (ARRAY['scheduled'::text, 'checking'::text, 'done'::text, 'failed'::text])))
);


--
-- Data for Name: account_flags; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.account_flags (id, account_id, reason, currency, amount, transaction_id, notification_id, created_at) FROM stdin;
\.


--
-- Data for Name: accounts; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.accounts (id, created_at) FROM stdin;
player-1	2026-11-26 00:32:02.017912+00
player-2	2026-11-26 00:32:02.071601+00
player-3	2026-11-26 00:32:02.130365+00
\.


--
-- Data for Name: app_account_tokens; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.app_account_tokens (token, account_id, created_at) FROM stdin;
\.


--
-- Data for Name: apple_notifications; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.apple_notifications (id, payload, payload_hash, status, reason, attempts, notification_uuid, type, subtype, environment, signed_date, transaction_id, original_transaction_id, product_id, account_id, created_at, updated_at, published_at, store, message_id) FROM stdin;
01a21544-4818-7685-bfe0-1d4825f468ed	eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlCK0RDQ0FaNmdBd0lCQWdJVU1Qc2x4d1Nza1RPZG5Ya1FMS2RDS3pZYUk4WXdDZ1lJS29aSXpqMEVBd0l3UWpFWE1CVUdBMVVFQ2d3T1UzUjFZaUJCY0hBZ1UzUnZjbVV4SnpBbEJnTlZCQU1NSGxOMGRXSWdRWEJ3SUZOMGIzSmxJRWx1ZEdWeWJXVmthV0YwWlNCRFFUQWVGdzB5TmpFeE1qVXdNRE15TURKYUZ3MHlOekV4TWpZd01ETXlNREphTUVJeEZ6QVZCZ05WQkFvTURsTjBkV0lnUVhCd0lGTjBiM0psTVNjd0pRWURWUVFEREI1VGRIVmlJRUZ3Y0NCVGRHOXlaU0JTWldObGFYQjBJRk5wWjI1cGJtY3dXVEFUQmdjcWhrak9QUUlCQmdncWhrak9QUU1CQndOQ0FBU0llcmQva3hoV08wS1pIc05FL2lnUVdCZVlFZEVLcmF1SjgxZU9uQ1VLb2piZml2aGRwZzlKU3RGcnE4dnFiV24vODh6WkVQV1JmUWx0YlY3M1NqZmVvM0l3Y0RBTUJnTlZIUk1CQWY4RUFqQUFNQTRHQTFVZER3RUIvd1FFQXdJSGdEQWRCZ05WSFE0RUZnUVVJQUFxRlUxd3g4MUg5V2llQUlXWVRjUUZiYWt3SHdZRFZSMGpCQmd3Rm9BVUt5K3MzNlkzQkNKRkgrRnY4SXNqY3IybnZCSXdFQVlLS29aSWh2ZGpaQVlMQVFRQ0JRQXdDZ1lJS29aSXpqMEVBd0lEU0FBd1JRSWhBTFNoWDZDVW9FYlZrcWdYcnZoMkQxOUYzUy91QzBVc0dxUWhVZC9pTTY5MEFpQmQ1UWk0SExJd2YrVkt3RGpJeVRoMXA2bWF6a2ZqcHF6YWd4Tnk4dGNabUE9PSIsIk1JSUIrRENDQVoyZ0F3SUJBZ0lWQUp3RkZQK0RFdzhZSXcyc3hWTWFMOXJOeTVodU1Bb0dDQ3FHU000OUJBTUNNRG94RnpBVkJnTlZCQW9NRGxOMGRXSWdRWEJ3SUZOMGIzSmxNUjh3SFFZRFZRUUREQlpUZEhWaUlFRndjQ0JUZEc5eVpTQlNiMjkwSUVOQk1CNFhEVEkyTVRFeU5UQXdNekl3TWxvWERUSTNNVEV5TmpBd016SXdNbG93UWpFWE1CVUdBMVVFQ2d3T1UzUjFZaUJCY0hBZ1UzUnZjbVV4SnpBbEJnTlZCQU1NSGxOMGRXSWdRWEJ3SUZOMGIzSmxJRWx1ZEdWeWJXVmthV0YwWlNCRFFUQlpNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQTBJQUJQRFgzRk1XbnhPNWxmcCs3T01scUw4ek1FaWI5RHgxMHo1Vm9vVTRzQjJsVjV3M29PdXFwQUlaTGVXajBLclVwOVNOQVpyV0hmRGUvVlNGbzF2QVBycWplREIyTUJJR0ExVWRFd0VCL3dRSU1BWUJBZjhDQVFBd0RnWURWUjBQQVFIL0JBUURBZ0VHTUIwR0ExVWREZ1FXQkJRckw2emZwamNFSWtVZjRXL3dpeU55dmFlOEVqQWZCZ05WSFNNRUdEQVdnQlJBSGRzTHlTY2hBdXBDSS94NE5ldGpZc0ZDTURBUUJnb3Foa2lHOTJOa0JnSUJCQUlGQURBS0JnZ3Foa2pPUFFRREFnTkpBREJHQWlFQW1LdXMvRHg4MmhRRFZoVjVhRStUdTJTbXlVWGN4VUhST2lwWDhpWHZHazhDSVFDTENpSUVjREZVZHI4bWtwcjcrTjFLM0FLeXNTR1ZSMXhCTmp6dEZ6ckVlQT09IiwiTUlJQnVEQ0NBVjZnQXdJQkFnSVVJK0lDQ3A4NjEzaERleTBQdkVGaFJuT053am93Q2dZSUtvWkl6ajBFQXdJd09qRVhNQlVHQTFVRUNnd09VM1IxWWlCQmNIQWdVM1J2Y21VeEh6QWRCZ05WQkFNTUZsTjBkV0lnUVhCd0lGTjBiM0psSUZKdmIzUWdRMEV3SGhjTk1qWXhNVEkxTURBek1qQXlXaGNOTWpjeE1USTJNREF6TWpBeVdqQTZNUmN3RlFZRFZRUUtEQTVUZEhWaUlFRndjQ0JUZEc5eVpURWZNQjBHQTFVRUF3d1dVM1IxWWlCQmNIQWdVM1J2Y21VZ1VtOXZkQ0JEUVRCWk1CTUdCeXFHU000OUFnRUdDQ3FHU000OUF3RUhBMElBQkhOOXZSNzBkQWVWOFBERkhVUFJ0VW1XRTRZd1lCeHRDOVc2dVJwVzRqcE1FTkhPVWowODg5eUlOendRTE1iYXJzaVhLTVJyRW5uWlJBMmRHM1p6dHllalFqQkFNQThHQTFVZEV3RUIvd1FGTUFNQkFmOHdEZ1lEVlIwUEFRSC9CQVFEQWdFR01CMEdBMVVkRGdRV0JCUkFIZHNMeVNjaEF1cENJL3g0TmV0allzRkNNREFLQmdncWhrak9QUVFEQWdOSUFEQkZBaUJpYzZVeVFwVFBjeHUzYzEyRUpIdE9vTEFKY2p3YkNxWi9TUFNTSHVOb0t3SWhBTFdXSDFXZ01hc24xeDJGMU5HRWR2ZTNXWFZaWkQzSWd0Zm1GN1V4eUs4YSJdfQ.eyJzaWduZWREYXRlIjoxNzk1NjUzMTI2MTY2LCJub3RpZmljYXRpb25VVUlEIjoiZTdkNzBkZGEtZmZhNS00YmM1LWJiMTMtZDMzOWI1ZDAzNjU1Iiwibm90aWZpY2F0aW9uVHlwZSI6IlJFRlVORCIsImRhdGEiOnsiYnVuZGxlSWQiOiJjb20uZXhhbXBsZS5nYW1lIiwiYnVuZGxlVmVyc2lvbiI6IjEiLCJzaWduZWRUcmFuc2FjdGlvbkluZm8iOiJleUpoYkdjaU9pSkZVekkxTmlJc0luZzFZeUk2V3lKTlNVbENLMFJEUTBGYU5tZEJkMGxDUVdkSlZVMVFjMng0ZDFOemExUlBaRzVZYTFGTVMyUkRTM3BaWVVrNFdYZERaMWxKUzI5YVNYcHFNRVZCZDBsM1VXcEZXRTFDVlVkQk1WVkZRMmQzVDFVelVqRlphVUpDWTBoQloxVXpVblpqYlZWNFNucEJiRUpuVGxaQ1FVMU5TR3hPTUdSWFNXZFJXRUozU1VaT01HSXpTbXhKUld4MVpFZFdlV0pYVm10aFYwWXdXbE5DUkZGVVFXVkdkekI1VG1wRmVFMXFWWGROUkUxNVRVUktZVVozTUhsT2VrVjRUV3BaZDAxRVRYbE5SRXBoVFVWSmVFWjZRVlpDWjA1V1FrRnZUVVJzVGpCa1YwbG5VVmhDZDBsR1RqQmlNMHBzVFZOamQwcFJXVVJXVVZGRVJFSTFWR1JJVm1sSlJVWjNZME5DVkdSSE9YbGFVMEpUV2xkT2JHRllRakJKUms1d1dqSTFjR0p0WTNkWFZFRlVRbWRqY1docmFrOVFVVWxDUW1kbmNXaHJhazlRVVUxQ1FuZE9RMEZCVTBsbGNtUXZhM2hvVjA4d1MxcEljMDVGTDJsblVWZENaVmxGWkVWTGNtRjFTamd4WlU5dVExVkxiMnBpWm1sMmFHUndaemxLVTNSR2NuRTRkbkZpVjI0dk9EaDZXa1ZRVjFKbVVXeDBZbFkzTTFOcVptVnZNMGwzWTBSQlRVSm5UbFpJVWsxQ1FXWTRSVUZxUVVGTlFUUkhRVEZWWkVSM1JVSXZkMUZGUVhkSlNHZEVRV1JDWjA1V1NGRTBSVVpuVVZWSlFVRnhSbFV4ZDNnNE1VZzVWMmxsUVVsWFdWUmpVVVppWVd0M1NIZFpSRlpTTUdwQ1FtZDNSbTlCVlV0NUszTXpObGt6UWtOS1JrZ3JSblk0U1hOcVkzSXliblpDU1hkRlFWbExTMjlhU1doMlpHcGFRVmxNUVZGUlEwSlJRWGREWjFsSlMyOWFTWHBxTUVWQmQwbEVVMEZCZDFKUlNXaEJURk5vV0RaRFZXOUZZbFpyY1dkWWNuWm9Na1F4T1VZelV5OTFRekJWYzBkeFVXaFZaQzlwVFRZNU1FRnBRbVExVVdrMFNFeEpkMllyVmt0M1JHcEplVlJvTVhBMmJXRjZhMlpxY0hGNllXZDRUbms0ZEdOYWJVRTlQU0lzSWsxSlNVSXJSRU5EUVZveVowRjNTVUpCWjBsV1FVcDNSa1pRSzBSRmR6aFpTWGN5YzNoV1RXRk1PWEpPZVRWb2RVMUJiMGREUTNGSFUwMDBPVUpCVFVOTlJHOTRSbnBCVmtKblRsWkNRVzlOUkd4T01HUlhTV2RSV0VKM1NVWk9NR0l6U214TlVqaDNTRkZaUkZaUlVVUkVRbHBVWkVoV2FVbEZSbmRqUTBKVVpFYzVlVnBUUWxOaU1qa3dTVVZPUWsxQ05GaEVWRWt5VFZSRmVVNVVRWGROZWtsM1RXeHZXRVJVU1ROTlZFVjVUbXBCZDAxNlNYZE5iRzkzVVdwRldFMUNWVWRCTVZWRlEyZDNUMVV6VWpGWmFVSkNZMGhCWjFVelVuWmpiVlY0U25wQmJFSm5UbFpDUVUxTlNHeE9NR1JYU1dkUldFSjNTVVpPTUdJelNteEpSV3gxWkVkV2VXSlhWbXRoVjBZd1dsTkNSRkZVUWxwTlFrMUhRbmx4UjFOTk5EbEJaMFZIUTBOeFIxTk5ORGxCZDBWSVFUQkpRVUpRUkZnelJrMVhibmhQTld4bWNDczNUMDFzY1V3NGVrMUZhV0k1UkhneE1IbzFWbTl2VlRSelFqSnNWalYzTTI5UGRYRndRVWxhVEdWWGFqQkxjbFZ3T1ZOT1FWcHlWMGhtUkdVdlZsTkdiekYyUVZCeWNXcGxSRUl5VFVKSlIwRXhWV1JGZDBWQ0wzZFJTVTFCV1VKQlpqaERRVkZCZDBSbldVUldVakJRUVZGSUwwSkJVVVJCWjBWSFRVSXdSMEV4VldSRVoxRlhRa0pSY2t3MmVtWndhbU5GU1d0VlpqUlhMM2RwZVU1NWRtRmxPRVZxUVdaQ1owNVdTRk5OUlVkRVFWZG5RbEpCU0dSelRIbFRZMmhCZFhCRFNTOTRORTVsZEdwWmMwWkRUVVJCVVVKbmIzRm9hMmxIT1RKT2EwSm5TVUpDUVVsR1FVUkJTMEpuWjNGb2EycFBVRkZSUkVGblRrcEJSRUpIUVdsRlFXMUxkWE12UkhnNE1taFJSRlpvVmpWaFJTdFVkVEpUYlhsVldHTjRWVWhTVDJsd1dEaHBXSFpIYXpoRFNWRkRURU5wU1VWalJFWlZaSEk0Yld0d2NqY3JUakZMTTBGTGVYTlRSMVpTTVhoQ1RtcDZkRVo2Y2tWbFFUMDlJaXdpVFVsSlFuVkVRME5CVmpablFYZEpRa0ZuU1ZWSkswbERRM0E0TmpFemFFUmxlVEJRZGtWR2FGSnVUMDUzYW05M1EyZFpTVXR2V2tsNmFqQkZRWGRKZDA5cVJWaE5RbFZIUVRGVlJVTm5kMDlWTTFJeFdXbENRbU5JUVdkVk0xSjJZMjFWZUVoNlFXUkNaMDVXUWtGTlRVWnNUakJrVjBsblVWaENkMGxHVGpCaU0wcHNTVVpLZG1JelVXZFJNRVYzU0doalRrMXFXWGhOVkVreFRVUkJlazFxUVhsWGFHTk9UV3BqZUUxVVNUSk5SRUY2VFdwQmVWZHFRVFpOVW1OM1JsRlpSRlpSVVV0RVFUVlVaRWhXYVVsRlJuZGpRMEpVWkVjNWVWcFVSV1pOUWpCSFFURlZSVUYzZDFkVk0xSXhXV2xDUW1OSVFXZFZNMUoyWTIxVloxVnRPWFprUTBKRVVWUkNXazFDVFVkQ2VYRkhVMDAwT1VGblJVZERRM0ZIVTAwME9VRjNSVWhCTUVsQlFraE9PWFpTTnpCa1FXVldPRkJFUmtoVlVGSjBWVzFYUlRSWmQxbENlSFJET1ZjMmRWSndWelJxY0UxRlRraFBWV293T0RnNWVVbE9lbmRSVEUxaVlYSnphVmhMVFZKeVJXNXVXbEpCTW1SSE0xcDZkSGxsYWxGcVFrRk5RVGhIUVRGVlpFVjNSVUl2ZDFGR1RVRk5Ra0ZtT0hkRVoxbEVWbEl3VUVGUlNDOUNRVkZFUVdkRlIwMUNNRWRCTVZWa1JHZFJWMEpDVWtGSVpITk1lVk5qYUVGMWNFTkpMM2cwVG1WMGFsbHpSa05OUkVGTFFtZG5jV2hyYWs5UVVWRkVRV2RPU1VGRVFrWkJhVUpwWXpaVmVWRndWRkJqZUhVell6RXlSVXBJZEU5dlRFRktZMnAzWWtOeFdpOVRVRk5UU0hWT2IwdDNTV2hCVEZkWFNERlhaMDFoYzI0eGVESkdNVTVIUldSMlpUTlhXRlphV2tRelNXZDBabTFHTjFWNGVVczRZU0pkZlEuZXlKcGJrRndjRTkzYm1WeWMyaHBjRlI1Y0dVaU9pSlFWVkpEU0VGVFJVUWlMQ0owY21GdWMyRmpkR2x2YmxKbFlYTnZiaUk2SWxCVlVrTklRVk5GSWl3aVluVnVaR3hsU1dRaU9pSmpiMjB1WlhoaGJYQnNaUzVuWVcxbElpd2liM0pwWjJsdVlXeFVjbUZ1YzJGamRHbHZia2xrSWpvaU1qRXlOREV5TmpZeE1USTRPVEU1TmlJc0luQjFjbU5vWVhObFJHRjBaU0k2TVRjNU5UWTFNekV5TmpFMk5pd2lkSGx3WlNJNklrTnZibk4xYldGaWJHVWlMQ0owY21GdWMyRmpkR2x2Ymtsa0lqb2lNakV5TkRFeU5qWXhNVEk0T1RFNU5pSXNJbkJ5YjJSMVkzUkpaQ0k2SW1OdmJTNWxlR0Z0Y0d4bExtTnZhVzV6TVRBd0lpd2liM0pwWjJsdVlXeFFkWEpqYUdGelpVUmhkR1VpT2pFM09UVTJOVE14TWpZeE5qWXNJbk5wWjI1bFpFUmhkR1VpT2pFM09UVTJOVE14TWpZeE5qWXNJbVZ1ZG1seWIyNXRaVzUwSWpvaVUyRnVaR0p2ZUNJc0luRjFZVzUwYVhSNUlqb3hMQ0p6ZEc5eVpXWnliMjUwSWpvaVZWTkJJbjAuekMxUERPRV82RTdmY0tmNzhsT2d0cXdNQldKQmU1blJmcTN2Smp2WEZzTi00YU1sc1NFakJDSUxyRFZmQXItd3ZjUUY1M3JRTFpxU3pqazBNa05HbGciLCJlbnZpcm9ubWVudCI6IlNhbmRib3gifSwidmVyc2lvbiI6IjIuMCJ9.8cx6HcAoYqpCfTe8P8Oawn5XHi91dRD3syzk10QkfZvPdS5LfQgpwrF8r87ceuzOIq-f-XOUVEarAlJgu4fhtg	789ca6ab0e273c943c5b6a01d50df65507e1d994fe21adbc058b9c9f4ffe6567	applied	\N	1	e7d70dda-ffa5-4bc5-bb13-d339b5d03655	REFUND	\N	Sandbox	2026-11-26 00:32:06.166+00	2124126611289196	2124126611289196	com.example.coins100	player-1	2026-11-26 00:32:06.167996+00	2026-11-26 00:32:06.22741+00	2026-11-26 00:32:06.22741+00	apple	\N
\.


--
-- Data for Name: apple_transactions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.apple_transactions (transaction_id, original_transaction_id, product_id, quantity, environment, receipt_id, notification_id, account_id, purchase_date, expires_date, cancellation_date, state, entitlement, created_at, updated_at, catalog_product_id, order_id, binding) FROM stdin;
2042003518118423	2042003518118423	com.example.coins100	1	Production	01a21544-37fa-78cb-8d2b-951f181b6686	\N	player-1	2026-11-26 00:32:02.034+00	\N	\N	credited	\N	2026-11-26 00:32:02.071568+00	2026-11-26 00:32:02.071568+00	com.example.coins100	\N	submitter
2255146985791041	2255146985791041	com.example.coins100	1	Production	01a21544-3817-71fb-880a-3f9a4817d643	\N	player-2	2026-11-26 00:32:02.056+00	\N	\N	credited	\N	2026-11-26 00:32:02.11134+00	2026-11-26 00:32:02.11134+00	com.example.coins100	\N	submitter
2404964226200451	2404964226200451	com.example.vip.monthly	1	Production	01a21544-3843-717b-b78b-9012e7de9199	\N	player-2	2026-11-26 00:32:02.092+00	\N	\N	credited	vip	2026-11-26 00:32:02.155317+00	2026-11-26 00:32:02.155317+00	com.example.vip.monthly	\N	submitter
2124126611289196	2124126611289196	com.example.coins100	1	Production	01a21544-37e2-7725-9504-6eaaeda42f21	\N	player-1	2026-11-26 00:32:02.008+00	\N	2026-11-26 00:32:06.187877+00	refunded	\N	2026-11-26 00:32:02.043356+00	2026-11-26 00:32:06.187877+00	com.example.coins100	\N	submitter
\.


--
-- Data for Name: balances; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.balances (account_id, currency, amount) FROM stdin;
player-1	coins	100
player-2	coins	150
\.


--
-- Data for Name: binding_conflicts; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.binding_conflicts (id, transaction_id, original_transaction_id, receipt_id, claimant_account_id, credited_account_id, binding, created_at) FROM stdin;
\.


--
-- Data for Name: call_budget_seconds; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.call_budget_seconds (name, second, calls) FROM stdin;
\.


--
-- Data for Name: call_budgets; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.call_budgets (name, next_slot_us, paused_until_us, limit_per_second, per_second) FROM stdin;
\.


--
-- Data for Name: consumption_answers; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.consumption_answers (notification_id, transaction_id, account_id, status, reason, body, apple_status, tenure_days, attempts, updated_at) FROM stdin;
\.


--
-- Data for Name: consumption_consents; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.consumption_consents (account_id, status, recorded_at) FROM stdin;
\.


--
-- Data for Name: dead_letters; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.dead_letters (id, receipt_id, account_id, reason, attempts, last_error, source_queue, body, headers, dead_at, status, resolved_by, resolved_reason, resolved_at, created_at) FROM stdin;
\.


--
-- Data for Name: entitlements; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.entitlements (account_id, name, expires_at, original_transaction_id, updated_at) FROM stdin;
player-2	vip	\N	2404964226200451	2026-11-26 00:32:02.155317+00
\.


--
-- Data for Name: google_acknowledgements; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.google_acknowledgements (purchase_token, package_name, product_id, action, receipt_id, status, attempts, next_attempt_at, last_error, created_at, done_at) FROM stdin;
\.


--
-- Data for Name: google_voided_polls; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.google_voided_polls (package_name, polled_until) FROM stdin;
\.


--
-- Data for Name: iap_schema_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.iap_schema_migrations (version, applied_at) FROM stdin;
1	2026-11-26 00:32:01.432154+00
2	2026-11-26 00:32:01.432154+00
3	2026-11-26 00:32:01.432154+00
4	2026-11-26 00:32:01.432154+00
5	2026-11-26 00:32:01.432154+00
6	2026-11-26 00:32:01.432154+00
\.


--
-- Data for Name: ledger_entries; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.ledger_entries (id, account_id, currency, amount, kind, receipt_id, notification_id, transaction_id, created_at) FROM stdin;
1	player-1	coins	100	purchase	01a21544-37e2-7725-9504-6eaaeda42f21	\N	2124126611289196	2026-11-26 00:32:02.043356+00
2	player-1	coins	100	purchase	01a21544-37fa-78cb-8d2b-951f181b6686	\N	2042003518118423	2026-11-26 00:32:02.071568+00
3	player-2	coins	100	purchase	01a21544-3817-71fb-880a-3f9a4817d643	\N	2255146985791041	2026-11-26 00:32:02.11134+00
4	player-1	coins	-100	refund	\N	01a21544-4818-7685-bfe0-1d4825f468ed	2124126611289196	2026-11-26 00:32:06.187877+00
5	player-2	coins	50	adjustment	\N	\N	adjustment:01a21544-4844-7b40-9d52-a7b3843d9163	2026-11-26 00:32:06.212491+00
\.


--
-- Data for Name: manual_adjustments; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.manual_adjustments (id, idempotency_key, account_id, kind, currency, amount, entitlement, expires_at, reason, operator, balance, written_off, created_at) FROM stdin;
01a21544-4844-7b40-9d52-a7b3843d9163	f9649fb8-1485-4085-9f99-b3ea94d4db57	player-2	currency	coins	50	\N	\N	goodwill after an outage	fixture	150	0	2026-11-26 00:32:06.212491+00
\.


--
-- Data for Name: notification_outbox; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.notification_outbox (id, type, receipt_id, notification_id, account_id, body, status, attempts, next_attempt_at, last_error, created_at, delivered_at) FROM stdin;
evt_01a21544-3806-7dab-904c-2d412e9bc634	receipt.credited	01a21544-37e2-7725-9504-6eaaeda42f21	\N	player-1	{"account_id":"player-1","data":{"balances":{"coins":100},"transactions":[{"amount":100,"currency":"coins","outcome":"credited","product_id":"com.example.coins100","transaction_id":"2124126611289196"}]},"receipt_id":"01a21544-37e2-7725-9504-6eaaeda42f21","type":"receipt.credited"}	pending	0	2026-11-26 00:32:02.043356+00	\N	2026-11-26 00:32:02.043356+00	\N
evt_01a21544-3828-770c-9d9d-45563af4ec48	receipt.credited	01a21544-37fa-78cb-8d2b-951f181b6686	\N	player-1	{"account_id":"player-1","data":{"balances":{"coins":200},"transactions":[{"amount":100,"currency":"coins","outcome":"credited","product_id":"com.example.coins100","transaction_id":"2042003518118423"}]},"receipt_id":"01a21544-37fa-78cb-8d2b-951f181b6686","type":"receipt.credited"}	pending	0	2026-11-26 00:32:02.071568+00	\N	2026-11-26 00:32:02.071568+00	\N
evt_01a21544-385b-7dc7-8050-289be5293735	receipt.credited	01a21544-3817-71fb-880a-3f9a4817d643	\N	player-2	{"account_id":"player-2","data":{"balances":{"coins":100},"transactions":[{"amount":100,"currency":"coins","outcome":"credited","product_id":"com.example.coins100","transaction_id":"2255146985791041"}]},"receipt_id":"01a21544-3817-71fb-880a-3f9a4817d643","type":"receipt.credited"}	pending	0	2026-11-26 00:32:02.11134+00	\N	2026-11-26 00:32:02.11134+00	\N
evt_01a21544-3871-7d24-88e7-35ee77f65966	receipt.credited	01a21544-3843-717b-b78b-9012e7de9199	\N	player-2	{"account_id":"player-2","data":{"balances":{"coins":100},"transactions":[{"entitlement":"vip","outcome":"credited","product_id":"com.example.vip.monthly","transaction_id":"2404964226200451"}]},"receipt_id":"01a21544-3843-717b-b78b-9012e7de9199","type":"receipt.credited"}	pending	0	2026-11-26 00:32:02.155317+00	\N	2026-11-26 00:32:02.155317+00	\N
evt_01a21544-4832-7d33-8ef9-85995f407624	purchase.refunded	01a21544-37e2-7725-9504-6eaaeda42f21	01a21544-4818-7685-bfe0-1d4825f468ed	player-1	{"account_id":"player-1","data":{"amount":-100,"balance":100,"currency":"coins","entitlement":null,"expires_at":null,"notification_uuid":"e7d70dda-ffa5-4bc5-bb13-d339b5d03655","original_transaction_id":"2124126611289196","product_id":"com.example.coins100","transaction_id":"2124126611289196","written_off":0},"notification_id":"01a21544-4818-7685-bfe0-1d4825f468ed","receipt_id":"01a21544-37e2-7725-9504-6eaaeda42f21","type":"purchase.refunded"}	pending	0	2026-11-26 00:32:06.187877+00	\N	2026-11-26 00:32:06.187877+00	\N
evt_01a21544-484d-713e-8e81-f8b16522a5f8	account.adjusted	\N	\N	player-2	{"account_id":"player-2","data":{"adjustment_id":"01a21544-4844-7b40-9d52-a7b3843d9163","amount":50,"balance":150,"currency":"coins","operator":"fixture","reason":"goodwill after an outage","written_off":0},"type":"account.adjusted"}	pending	0	2026-11-26 00:32:06.212491+00	\N	2026-11-26 00:32:06.212491+00	\N
\.


--
-- Data for Name: orders; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.orders (id, account_id, product_id, apple_product_id, app_account_token, first_purchase, status, created_at, expires_at, closed_at, close_reason, receipt_id, transaction_id, credited_product_id) FROM stdin;
\.


--
-- Data for Name: receipt_transactions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.receipt_transactions (seq, receipt_id, transaction_id, product_id, outcome, currency, amount, entitlement, expires_at) FROM stdin;
1	01a21544-37e2-7725-9504-6eaaeda42f21	2124126611289196	com.example.coins100	credited	coins	100	\N	\N
2	01a21544-37fa-78cb-8d2b-951f181b6686	2042003518118423	com.example.coins100	credited	coins	100	\N	\N
3	01a21544-3817-71fb-880a-3f9a4817d643	2255146985791041	com.example.coins100	credited	coins	100	\N	\N
4	01a21544-3843-717b-b78b-9012e7de9199	2404964226200451	com.example.vip.monthly	credited	\N	\N	vip	\N
\.


--
-- Data for Name: receipts; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.receipts (id, account_id, kind, payload, payload_hash, order_id, product_id, status, reason, attempts, environment, idempotency_key, request_hash, created_at, updated_at, published_at) FROM stdin;
01a21544-37e2-7725-9504-6eaaeda42f21	player-1	legacy	aWFwc3R1YjEueyJhcHBsaWNhdGlvbl92ZXJzaW9uIjoiMSIsImJ1bmRsZV9pZCI6ImNvbS5leGFtcGxlLmdhbWUiLCJjcmVhdGVkX2F0IjoiMjAyNi0xMS0yNlQwMDozMjowMi4wMDhaIiwiZW52aXJvbm1lbnQiOiJQcm9kdWN0aW9uIiwidHJhbnNhY3Rpb25zIjpbeyJvcmlnaW5hbF90cmFuc2FjdGlvbl9pZCI6IjIxMjQxMjY2MTEyODkxOTYiLCJwcm9kdWN0X2lkIjoiY29tLmV4YW1wbGUuY29pbnMxMDAiLCJwdXJjaGFzZV9kYXRlIjoiMjAyNi0xMS0yNlQwMDozMjowMi4wMDhaIiwicXVhbnRpdHkiOjEsInRyYW5zYWN0aW9uX2lkIjoiMjEyNDEyNjYxMTI4OTE5NiJ9XX0uYTI2NzBjMWRlM2JjYjhkZTJiOWQxZjQ3MTliZTdjYmIyZTU1N2RmMzJhZDBjOTcyNDcyYTRiZWVmMTNiYTlhNA==	e3d2636ee67167005728627bcabd07869348eda3dce58372f625f0f4ad668b95	\N	\N	credited	\N	1	Production	\N	e4f0455eb8e0cf60f3d4ca95d1c95e0a8aaafcde0d3638c6a25337c42a3b8cad	2026-11-26 00:32:02.017912+00	2026-11-26 00:32:02.080223+00	2026-11-26 00:32:02.080223+00
01a21544-37fa-78cb-8d2b-951f181b6686	player-1	legacy	aWFwc3R1YjEueyJhcHBsaWNhdGlvbl92ZXJzaW9uIjoiMSIsImJ1bmRsZV9pZCI6ImNvbS5leGFtcGxlLmdhbWUiLCJjcmVhdGVkX2F0IjoiMjAyNi0xMS0yNlQwMDozMjowMi4wMzRaIiwiZW52aXJvbm1lbnQiOiJQcm9kdWN0aW9uIiwidHJhbnNhY3Rpb25zIjpbeyJvcmlnaW5hbF90cmFuc2FjdGlvbl9pZCI6IjIwNDIwMDM1MTgxMTg0MjMiLCJwcm9kdWN0X2lkIjoiY29tLmV4YW1wbGUuY29pbnMxMDAiLCJwdXJjaGFzZV9kYXRlIjoiMjAyNi0xMS0yNlQwMDozMjowMi4wMzRaIiwicXVhbnRpdHkiOjEsInRyYW5zYWN0aW9uX2lkIjoiMjA0MjAwMzUxODExODQyMyJ9XX0uZjI5ZjY0ODE2YzczMjg3ZTc0MmEwYzMxYzdjYmVkOTMyNjA0MTNjMGUxMDE3NTkwOWNjZjY3MDVkM2IzMjg2OQ==	7781de674ef61b89bf39891cd136ae068e4016b75030a6026eccd4974109ef0d	\N	\N	credited	\N	1	Production	\N	2adb13d613877db5804e447336860c6fbd97b1a6a86c7ecd4c303d98a27a91b8	2026-11-26 00:32:02.04214+00	2026-11-26 00:32:02.071568+00	2026-11-26 00:32:02.080223+00
01a21544-3817-71fb-880a-3f9a4817d643	player-2	legacy	aWFwc3R1YjEueyJhcHBsaWNhdGlvbl92ZXJzaW9uIjoiMSIsImJ1bmRsZV9pZCI6ImNvbS5leGFtcGxlLmdhbWUiLCJjcmVhdGVkX2F0IjoiMjAyNi0xMS0yNlQwMDozMjowMi4wNTZaIiwiZW52aXJvbm1lbnQiOiJQcm9kdWN0aW9uIiwidHJhbnNhY3Rpb25zIjpbeyJvcmlnaW5hbF90cmFuc2FjdGlvbl9pZCI6IjIyNTUxNDY5ODU3OTEwNDEiLCJwcm9kdWN0X2lkIjoiY29tLmV4YW1wbGUuY29pbnMxMDAiLCJwdXJjaGFzZV9kYXRlIjoiMjAyNi0xMS0yNlQwMDozMjowMi4wNTZaIiwicXVhbnRpdHkiOjEsInRyYW5zYWN0aW9uX2lkIjoiMjI1NTE0Njk4NTc5MTA0MSJ9XX0uNDA3M2Q3ZDRlMzc4N2YxMjZkOGQxNzczZjAxNTI2ZjIzNmJmZWRmM2IzNTM2ODFiZDlkNDliNGUzNGM0Yzc3ZA==	71e4876809e6df15b3365b66c4a92565504264ccc4bb85170cd1012f980810ae	\N	\N	credited	\N	1	Production	\N	f74a1f42eaa48e7b61fdf4b386630d4415bd292de5060a67a9c05bd6e57121a6	2026-11-26 00:32:02.071601+00	2026-11-26 00:32:02.11134+00	2026-11-26 00:32:02.134696+00
01a21544-3843-717b-b78b-9012e7de9199	player-2	legacy	aWFwc3R1YjEueyJhcHBsaWNhdGlvbl92ZXJzaW9uIjoiMSIsImJ1bmRsZV9pZCI6ImNvbS5leGFtcGxlLmdhbWUiLCJjcmVhdGVkX2F0IjoiMjAyNi0xMS0yNlQwMDozMjowMi4wOTJaIiwiZW52aXJvbm1lbnQiOiJQcm9kdWN0aW9uIiwidHJhbnNhY3Rpb25zIjpbeyJvcmlnaW5hbF90cmFuc2FjdGlvbl9pZCI6IjI0MDQ5NjQyMjYyMDA0NTEiLCJwcm9kdWN0X2lkIjoiY29tLmV4YW1wbGUudmlwLm1vbnRobHkiLCJwdXJjaGFzZV9kYXRlIjoiMjAyNi0xMS0yNlQwMDozMjowMi4wOTJaIiwicXVhbnRpdHkiOjEsInRyYW5zYWN0aW9uX2lkIjoiMjQwNDk2NDIyNjIwMDQ1MSJ9XX0uZjgwMmM2MDA4NDg4M2EzZDUwN2JjZThiYTQxMjI2YTg4NmYxYjJiZGUzNTA3ZTVlNDMzNzAzNmE4N2VlNWNiMg==	2885ce690215cd4b23979c5003cf9729c91d85a5135c2840c4618f192aa27dcb	\N	\N	credited	\N	1	Production	\N	58ff46ad2c99e5980d95376391e6024520b2151299a250d0ed838030cda00fb2	2026-11-26 00:32:02.115147+00	2026-11-26 00:32:02.155317+00	2026-11-26 00:32:02.134696+00
01a21544-3852-7c32-827e-5576816d0062	player-3	legacy	bm90IGEgcmVjZWlwdA==	c2aafa86b6f697a3f4b01542e35034846daaaedba2e2c00cc362a4a78a4689e7	\N	\N	retrying	apple_status_21002	2	\N	\N	93357a93ee1e25abd7643648bd11011910c631d1a0cc13dfb5e81416bb7cb900	2026-11-26 00:32:02.130365+00	2026-11-26 00:32:03.159308+00	2026-11-26 00:32:02.188734+00
\.


--
-- Data for Name: reconciliation_runs; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.reconciliation_runs (id, trigger, mode, window_start, window_end, examined, missing, fed, error, started_at, finished_at) FROM stdin;
\.


--
-- Data for Name: subscription_checks; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.subscription_checks (id, original_transaction_id, account_id, entitlement, expires_at, phase, due_at, status, outcome, reason, receipt_id, created_at, updated_at, published_at) FROM stdin;
\.


--
-- Name: account_flags_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.account_flags_id_seq', 1, false);


--
-- Name: binding_conflicts_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.binding_conflicts_id_seq', 1, false);


--
-- Name: ledger_entries_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.ledger_entries_id_seq', 5, true);


--
-- Name: receipt_transactions_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.receipt_transactions_seq_seq', 4, true);


--
-- Name: reconciliation_runs_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.reconciliation_runs_id_seq', 1, false);


--
-- Name: account_flags account_flags_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.account_flags
    ADD CONSTRAINT account_flags_pkey PRIMARY KEY (id);


--
-- Name: account_flags account_flags_transaction_id_reason_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.account_flags
    ADD CONSTRAINT account_flags_transaction_id_reason_key UNIQUE (transaction_id, reason);


--
-- Name: accounts accounts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.accounts
    ADD CONSTRAINT accounts_pkey PRIMARY KEY (id);


--
-- Name: app_account_tokens app_account_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.app_account_tokens
    ADD CONSTRAINT app_account_tokens_pkey PRIMARY KEY (token);


--
-- Name: apple_notifications apple_notifications_message_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apple_notifications
    ADD CONSTRAINT apple_notifications_message_id_key UNIQUE (message_id);


--
-- Name: apple_notifications apple_notifications_notification_uuid_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apple_notifications
    ADD CONSTRAINT apple_notifications_notification_uuid_key UNIQUE (notification_uuid);


--
-- Name: apple_notifications apple_notifications_payload_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apple_notifications
    ADD CONSTRAINT apple_notifications_payload_hash_key UNIQUE (payload_hash);


--
-- Name: apple_notifications apple_notifications_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apple_notifications
    ADD CONSTRAINT apple_notifications_pkey PRIMARY KEY (id);


--
-- Name: apple_transactions apple_transactions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apple_transactions
    ADD CONSTRAINT apple_transactions_pkey PRIMARY KEY (transaction_id);


--
-- Name: balances balances_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.balances
    ADD CONSTRAINT balances_pkey PRIMARY KEY (account_id, currency);


--
-- Name: binding_conflicts binding_conflicts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.binding_conflicts
    ADD CONSTRAINT binding_conflicts_pkey PRIMARY KEY (id);


--
-- Name: binding_conflicts binding_conflicts_transaction_id_receipt_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.binding_conflicts
    ADD CONSTRAINT binding_conflicts_transaction_id_receipt_id_key UNIQUE (transaction_id, receipt_id);


--
-- Name: call_budget_seconds call_budget_seconds_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.call_budget_seconds
    ADD CONSTRAINT call_budget_seconds_pkey PRIMARY KEY (name, second);


--
-- Name: call_budgets call_budgets_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.call_budgets
    ADD CONSTRAINT call_budgets_pkey PRIMARY KEY (name);


--
-- Name: consumption_answers consumption_answers_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.consumption_answers
    ADD CONSTRAINT consumption_answers_pkey PRIMARY KEY (notification_id);


--
-- Name: consumption_consents consumption_consents_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.consumption_consents
    ADD CONSTRAINT consumption_consents_pkey PRIMARY KEY (account_id);


--
-- Name: dead_letters dead_letters_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.dead_letters
    ADD CONSTRAINT dead_letters_pkey PRIMARY KEY (id);


--
-- Name: entitlements entitlements_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.entitlements
    ADD CONSTRAINT entitlements_pkey PRIMARY KEY (account_id, name);


--
-- Name: google_acknowledgements google_acknowledgements_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.google_acknowledgements
    ADD CONSTRAINT google_acknowledgements_pkey PRIMARY KEY (purchase_token);


--
-- Name: google_voided_polls google_voided_polls_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.google_voided_polls
    ADD CONSTRAINT google_voided_polls_pkey PRIMARY KEY (package_name);


--
-- Name: iap_schema_migrations iap_schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.iap_schema_migrations
    ADD CONSTRAINT iap_schema_migrations_pkey PRIMARY KEY (version);


--
-- Name: ledger_entries ledger_entries_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ledger_entries
    ADD CONSTRAINT ledger_entries_pkey PRIMARY KEY (id);


--
-- Name: ledger_entries ledger_entries_transaction_id_kind_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ledger_entries
    ADD CONSTRAINT ledger_entries_transaction_id_kind_key UNIQUE (transaction_id, kind);


--
-- Name: manual_adjustments manual_adjustments_idempotency_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.manual_adjustments
    ADD CONSTRAINT manual_adjustments_idempotency_key_key UNIQUE (idempotency_key);


--
-- Name: manual_adjustments manual_adjustments_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.manual_adjustments
    ADD CONSTRAINT manual_adjustments_pkey PRIMARY KEY (id);


--
-- Name: notification_outbox notification_outbox_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.notification_outbox
    ADD CONSTRAINT notification_outbox_pkey PRIMARY KEY (id);


--
-- Name: orders orders_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_pkey PRIMARY KEY (id);


--
-- Name: receipt_transactions receipt_transactions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.receipt_transactions
    ADD CONSTRAINT receipt_transactions_pkey PRIMARY KEY (receipt_id, transaction_id);


--
-- Name: receipts receipts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.receipts
    ADD CONSTRAINT receipts_pkey PRIMARY KEY (id);


--
-- Name: reconciliation_runs reconciliation_runs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.reconciliation_runs
    ADD CONSTRAINT reconciliation_runs_pkey PRIMARY KEY (id);


--
-- Name: subscription_checks subscription_checks_original_transaction_id_expires_at_phas_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.subscription_checks
    ADD CONSTRAINT subscription_checks_original_transaction_id_expires_at_phas_key UNIQUE (original_transaction_id, expires_at, phase);


--
-- Name: subscription_checks subscription_checks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.subscription_checks
    ADD CONSTRAINT subscription_checks_pkey PRIMARY KEY (id);


--
-- Name: account_flags_on_account; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX account_flags_on_account ON public.account_flags USING btree (account_id, id);


--
-- Name: app_account_tokens_on_account; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX app_account_tokens_on_account ON public.app_account_tokens USING btree (account_id, created_at);


--
-- Name: apple_notifications_consumption_requests; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX apple_notifications_consumption_requests ON public.apple_notifications USING btree (created_at) WHERE (type = 'CONSUMPTION_REQUEST'::text);


--
-- Name: apple_notifications_unpublished; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX apple_notifications_unpublished ON public.apple_notifications USING btree (created_at) WHERE (published_at IS NULL);


--
-- Name: apple_transactions_on_account_product; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX apple_transactions_on_account_product ON public.apple_transactions USING btree (account_id, catalog_product_id);


--
-- Name: apple_transactions_on_original; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX apple_transactions_on_original ON public.apple_transactions USING btree (original_transaction_id, created_at);


--
-- Name: apple_transactions_on_receipt; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX apple_transactions_on_receipt ON public.apple_transactions USING btree (receipt_id);


--
-- Name: dead_letters_on_account; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX dead_letters_on_account ON public.dead_letters USING btree (account_id, dead_at);


--
-- Name: dead_letters_on_dead_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX dead_letters_on_dead_at ON public.dead_letters USING btree (dead_at);


--
-- Name: dead_letters_on_reason; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX dead_letters_on_reason ON public.dead_letters USING btree (status, reason, dead_at);


--
-- Name: dead_letters_on_receipt; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX dead_letters_on_receipt ON public.dead_letters USING btree (receipt_id);


--
-- Name: entitlements_on_expires_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX entitlements_on_expires_at ON public.entitlements USING btree (expires_at);


--
-- Name: google_acknowledgements_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX google_acknowledgements_due ON public.google_acknowledgements USING btree (status, next_attempt_at);


--
-- Name: ledger_entries_on_account; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ledger_entries_on_account ON public.ledger_entries USING btree (account_id, id);


--
-- Name: ledger_entries_one_debit_per_transaction; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX ledger_entries_one_debit_per_transaction ON public.ledger_entries USING btree (transaction_id) WHERE (kind = ANY (ARRAY['refund'::text, 'revoke'::text]));


--
-- Name: manual_adjustments_on_account; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX manual_adjustments_on_account ON public.manual_adjustments USING btree (account_id, created_at);


--
-- Name: notification_outbox_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX notification_outbox_due ON public.notification_outbox USING btree (status, next_attempt_at);


--
-- Name: notification_outbox_one_final_per_receipt; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX notification_outbox_one_final_per_receipt ON public.notification_outbox USING btree (receipt_id) WHERE (type = ANY (ARRAY['receipt.credited'::text, 'receipt.rejected'::text]));


--
-- Name: notification_outbox_one_per_notification; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX notification_outbox_one_per_notification ON public.notification_outbox USING btree (notification_id, type) WHERE (notification_id IS NOT NULL);


--
-- Name: orders_on_account_product_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX orders_on_account_product_created ON public.orders USING btree (account_id, product_id, created_at);


--
-- Name: orders_one_open_per_account_product; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX orders_one_open_per_account_product ON public.orders USING btree (account_id, product_id) WHERE (status = 'open'::text);


--
-- Name: receipts_on_account_idempotency_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX receipts_on_account_idempotency_key ON public.receipts USING btree (account_id, idempotency_key) WHERE (idempotency_key IS NOT NULL);


--
-- Name: receipts_on_account_payload; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX receipts_on_account_payload ON public.receipts USING btree (account_id, payload_hash);


--
-- Name: receipts_unpublished; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX receipts_unpublished ON public.receipts USING btree (created_at) WHERE (published_at IS NULL);


--
-- Name: reconciliation_runs_on_end; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX reconciliation_runs_on_end ON public.reconciliation_runs USING btree (mode, window_end);


--
-- Name: subscription_checks_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX subscription_checks_due ON public.subscription_checks USING btree (status, due_at);


--
-- Name: apple_notifications apple_notifications_id_is_not_a_receipt; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER apple_notifications_id_is_not_a_receipt BEFORE INSERT ON public.apple_notifications FOR EACH ROW EXECUTE FUNCTION public.iap_id_is_not_taken();


--
-- Name: receipts receipts_id_is_not_a_notification; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER receipts_id_is_not_a_notification BEFORE INSERT ON public.receipts FOR EACH ROW EXECUTE FUNCTION public.iap_id_is_not_taken();


--
-- Name: account_flags account_flags_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.account_flags
    ADD CONSTRAINT account_flags_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- Name: account_flags account_flags_notification_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.account_flags
    ADD CONSTRAINT account_flags_notification_id_fkey FOREIGN KEY (notification_id) REFERENCES public.apple_notifications(id);


--
-- Name: app_account_tokens app_account_tokens_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.app_account_tokens
    ADD CONSTRAINT app_account_tokens_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- Name: apple_notifications apple_notifications_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apple_notifications
    ADD CONSTRAINT apple_notifications_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- Name: apple_transactions apple_transactions_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apple_transactions
    ADD CONSTRAINT apple_transactions_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- Name: apple_transactions apple_transactions_notification_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apple_transactions
    ADD CONSTRAINT apple_transactions_notification_id_fkey FOREIGN KEY (notification_id) REFERENCES public.apple_notifications(id);


--
-- Name: apple_transactions apple_transactions_order_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apple_transactions
    ADD CONSTRAINT apple_transactions_order_id_fkey FOREIGN KEY (order_id) REFERENCES public.orders(id);


--
-- Name: apple_transactions apple_transactions_receipt_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apple_transactions
    ADD CONSTRAINT apple_transactions_receipt_id_fkey FOREIGN KEY (receipt_id) REFERENCES public.receipts(id);


--
-- Name: balances balances_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.balances
    ADD CONSTRAINT balances_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- Name: binding_conflicts binding_conflicts_receipt_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.binding_conflicts
    ADD CONSTRAINT binding_conflicts_receipt_id_fkey FOREIGN KEY (receipt_id) REFERENCES public.receipts(id);


--
-- Name: consumption_answers consumption_answers_notification_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.consumption_answers
    ADD CONSTRAINT consumption_answers_notification_id_fkey FOREIGN KEY (notification_id) REFERENCES public.apple_notifications(id);


--
-- Name: consumption_consents consumption_consents_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.consumption_consents
    ADD CONSTRAINT consumption_consents_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- Name: entitlements entitlements_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.entitlements
    ADD CONSTRAINT entitlements_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- Name: google_acknowledgements google_acknowledgements_receipt_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.google_acknowledgements
    ADD CONSTRAINT google_acknowledgements_receipt_id_fkey FOREIGN KEY (receipt_id) REFERENCES public.receipts(id);


--
-- Name: ledger_entries ledger_entries_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ledger_entries
    ADD CONSTRAINT ledger_entries_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- Name: ledger_entries ledger_entries_notification_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ledger_entries
    ADD CONSTRAINT ledger_entries_notification_id_fkey FOREIGN KEY (notification_id) REFERENCES public.apple_notifications(id);


--
-- Name: ledger_entries ledger_entries_receipt_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ledger_entries
    ADD CONSTRAINT ledger_entries_receipt_id_fkey FOREIGN KEY (receipt_id) REFERENCES public.receipts(id);


--
-- Name: manual_adjustments manual_adjustments_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.manual_adjustments
    ADD CONSTRAINT manual_adjustments_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- Name: notification_outbox notification_outbox_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.notification_outbox
    ADD CONSTRAINT notification_outbox_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- Name: notification_outbox notification_outbox_notification_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.notification_outbox
    ADD CONSTRAINT notification_outbox_notification_id_fkey FOREIGN KEY (notification_id) REFERENCES public.apple_notifications(id);


--
-- Name: notification_outbox notification_outbox_receipt_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.notification_outbox
    ADD CONSTRAINT notification_outbox_receipt_id_fkey FOREIGN KEY (receipt_id) REFERENCES public.receipts(id);


--
-- Name: orders orders_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- Name: orders orders_app_account_token_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_app_account_token_fkey FOREIGN KEY (app_account_token) REFERENCES public.app_account_tokens(token);


--
-- Name: orders orders_receipt_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_receipt_id_fkey FOREIGN KEY (receipt_id) REFERENCES public.receipts(id);


--
-- Name: receipt_transactions receipt_transactions_receipt_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.receipt_transactions
    ADD CONSTRAINT receipt_transactions_receipt_id_fkey FOREIGN KEY (receipt_id) REFERENCES public.receipts(id);


--
-- Name: receipts receipts_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.receipts
    ADD CONSTRAINT receipts_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- Name: subscription_checks subscription_checks_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.subscription_checks
    ADD CONSTRAINT subscription_checks_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- Name: subscription_checks subscription_checks_receipt_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.subscription_checks
    ADD CONSTRAINT subscription_checks_receipt_id_fkey FOREIGN KEY (receipt_id) REFERENCES public.receipts(id);


--
-- PostgreSQL database dump complete
--


