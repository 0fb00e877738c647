package dev.deja.prove;

import dev.deja.engine.InputException;
import dev.deja.model.haproxy.Directive;
import dev.deja.model.haproxy.Frontends;
import dev.deja.model.haproxy.HaproxyConfig;
import dev.deja.model.haproxy.HaproxyParser;
import dev.deja.model.haproxy.ParseOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Replays IL-0264 against a configuration: for each provable rule that applies to the frontend
 * under test, a <b>before</b> run on the user's configuration and an <b>after</b> run with the
 * rule's remediation applied, same workload, in a loopback sandbox on the real haproxy; then a
 * verdict. Every phase is bounded; everything started is stopped and the temporary folder deleted
 * on every exit path ({@link Cleanup}).
 */
public final class Prover {
    public static final String TARPIT = "haproxy-tarpit-holds-slots";
    public static final String TIMEOUT = "haproxy-missing-http-request-timeout";
    public static final String MAXCONN = "haproxy-maxconn-headroom";
    public static final List<String> RULES = List.of(TARPIT, TIMEOUT, MAXCONN);

    /** The search ceiling of --find-limit, in requests per second. */
    static final double CEILING_RPS = 5000;

    static final long HTTP_REQUEST_TIMEOUT_MS = 5000;

    /**
     * What to run: the frontend (null: the first one a provable rule applies to), the rule (null:
     * all), the workload.
     */
    public record Options(
            String frontend,
            String rule,
            long durationMs,
            double clientRps,
            double legitRps,
            long legitTimeoutMs,
            long serviceTimeMs,
            boolean findLimit,
            String haproxy,
            boolean legitRpsGiven) {

        public Options(
                String frontend,
                String rule,
                long durationMs,
                double clientRps,
                double legitRps,
                long legitTimeoutMs,
                long serviceTimeMs,
                boolean findLimit,
                String haproxy) {
            this(
                    frontend,
                    rule,
                    durationMs,
                    clientRps,
                    legitRps,
                    legitTimeoutMs,
                    serviceTimeMs,
                    findLimit,
                    haproxy,
                    true);
        }
    }

    private final Options o;
    private final HaproxyBinary haproxy;
    private final PrintWriter progress;
    private final BooleanSupplier stop;
    private final Isolation isolation;
    private final String release;
    private int runs;
    private Path home;

    /**
     * The length of the flood run being made (--duration, lengthened where the slots fill later).
     */
    private long runMs;

    /** The incident's client rate (IL-0264: one client at 300 req/s), for margins. */
    static final double INCIDENT_RPS = 300;

    /** The longest run deja makes. */
    static final long MAX_RUN_MS = 60_000;

    /** Runs of the margin search: 3 before the fix, 1 after it. */
    static final int SEARCH_BEFORE = 3;

    static final int SEARCH_AFTER = 1;

    Prover(
            Options o,
            HaproxyBinary haproxy,
            PrintWriter progress,
            BooleanSupplier stop,
            Map<String, String> env) {
        this.o = o;
        this.haproxy = haproxy;
        this.progress = progress;
        this.stop = stop;
        this.isolation = Isolation.choose(env, haproxy);
        this.release = haproxy.release();
    }

    /** Locates haproxy (exit 2 with the install hint when absent) and proves {@code text}. */
    public static ProveReport prove(
            String display, String text, Options o, Map<String, String> env, PrintWriter progress)
            throws IOException {
        HaproxyBinary hb = HaproxyBinary.locate(o.haproxy(), env);
        return new Prover(o, hb, progress, () -> false, env).run(display, text);
    }

    /** Parsed as deja's default HAProxy version reads it, with no environment (for tests). */
    static HaproxyConfig parse(String display, String text) {
        return parse(display, text, null);
    }

    /**
     * Parsed as the haproxy that runs reads it: {@code .if} decided with {@code release} (its
     * version, from {@code haproxy -v}), and no environment variable known, since haproxy starts
     * with none: a {@code ${NAME}} stays unresolved and its directive is left out of the sandbox.
     */
    static HaproxyConfig parse(String display, String text, String release) {
        return HaproxyParser.parse(display, text, new ParseOptions(n -> null, release));
    }

    private HaproxyConfig parseHere(String display, String text) {
        return parse(display, text, release);
    }

    /**
     * The frontend under test: --frontend, else the first that tarpits, else the first HTTP one.
     */
    static Frontends.Frontend target(HaproxyConfig cfg, String name) {
        List<Frontends.Frontend> all = Frontends.primary(cfg);
        if (name != null) {
            for (Frontends.Frontend f : all) {
                if (name.equals(f.section().name())) {
                    return f;
                }
            }
            throw new InputException(
                    "--frontend "
                            + name
                            + ": no frontend or listen of that name in "
                            + cfg.name()
                            + " (there are: "
                            + String.join(", ", all.stream().map(Frontends.Frontend::name).toList())
                            + ")");
        }
        for (Frontends.Frontend f : all) {
            if (!f.tarpits().isEmpty() && f.tarpitHoldMillis() > 0) {
                return f;
            }
        }
        for (int pass = 0; pass < 2; pass++) {
            for (Frontends.Frontend f : all) {
                // first one that routes to a backend (a stats-only frontend is a poor stand-in for
                // the site)
                boolean routes =
                        f.backends().stream().anyMatch(b -> !b.equals(f.section().name()))
                                || !f.section().all(d -> d.is("server")).isEmpty();
                if (f.http()
                        && (!f.httpRequest().set() || f.httpRequest().millis() == 0)
                        && (routes || pass == 1)) {
                    return f;
                }
            }
        }
        for (Frontends.Frontend f : all) {
            if (!f.section().all(d -> d.is("bind")).isEmpty()) {
                return f;
            }
        }
        throw new InputException(
                cfg.name() + ": no frontend or listen with a bind line to prove against");
    }

    /**
     * The rule that singles the abuser out: the first tarpit, else the first rate-limit rule, else
     * the first deny.
     */
    static Directive abuserRule(Frontends.Frontend f) {
        if (!f.tarpits().isEmpty()) {
            return f.tarpits().get(0);
        }
        if (!f.rateRules().isEmpty()) {
            return f.rateRules().get(0);
        }
        for (Directive d : f.section().directives()) {
            String a = d.word(d.is("tcp-request") ? 2 : 1);
            if ((d.is("http-request") || d.is("tcp-request"))
                    && a != null
                    && (a.equals("deny") || a.equals("reject") || a.equals("tarpit"))
                    && d.words().contains("if")) {
                return d;
            }
        }
        return null;
    }

    /**
     * How long a flood at {@code rps} must run to show its steady state: the slots fill after slots
     * / rps seconds when one client holds rps x hold of them, and a legitimate client then waits up
     * to --legit-timeout; 0 when the flood never fills them (its steady state shows at once).
     */
    long neededMs(double rps, long holdMs, long slots) {
        if (slots <= 0 || holdMs <= 0 || rps * holdMs / 1000.0 < slots) {
            return 0;
        }
        long fill = (long) Math.ceil(slots * 1000.0 / rps);
        long need = fill + o.legitTimeoutMs() + 1000;
        return (need + 499) / 500 * 500;
    }

    ProveReport run(String display, String text) throws IOException {
        runMs = o.durationMs();
        Path file = Path.of(display);
        home = Files.isRegularFile(file) ? file.toAbsolutePath().getParent() : null;
        HaproxyConfig cfg = parseHere(display, text);
        Frontends.Frontend f = target(cfg, o.frontend());
        Directive rule = abuserRule(f);
        AbuserPlan plan = AbuserPlan.of(f, rule);
        String version = haproxy.version();
        List<Proof> proofs = new ArrayList<>();
        List<String> sandboxChanges = new ArrayList<>();
        try (Cleanup cleanup = new Cleanup();
                StubBackend stub = new StubBackend(o.serviceTimeMs(), 32)) {
            cleanup.add(stub);
            Ctx ctx = new Ctx(cleanup, stub, f.name(), display, sandboxChanges);
            Subject s = subject(f, rule, plan, text);
            RunResult before = floodBefore(ctx, s, proofs);
            if (want(TARPIT) && !s.hasTarpit() && rule != null) {
                proofs.add(rateLimitAlone(ctx, s));
            }
            if (s.tarpit() && before != null) {
                proofs.add(tarpitFixed(ctx, s, before));
            }
            if (s.maxconn() && before != null) {
                proofs.add(maxconnRaised(ctx, s, before));
            }
            if (s.timeout()) {
                proofs.add(timeoutSet(ctx, s));
            }
            if (proofs.isEmpty()) {
                proofs.add(noProvableRule(f));
            }
        }
        boolean flood =
                proofs.stream().anyMatch(p -> !p.ruleId().equals(TIMEOUT) && p.before() != null);
        boolean slow =
                proofs.stream().anyMatch(p -> p.ruleId().equals(TIMEOUT) && p.before() != null);
        return new ProveReport(
                display,
                f.name(),
                version,
                plan,
                workload(plan, flood, slow),
                List.copyOf(sandboxChanges),
                proofs,
                runMillis);
    }

    /**
     * What is proved on the frontend: the configuration's text, the tarpit's hold, the frontend's
     * slots and how many the flood holds, and which of the rules apply.
     */
    private record Subject(
            Frontends.Frontend f,
            AbuserPlan plan,
            String text,
            long hold,
            long slots,
            long held,
            boolean hasTarpit,
            boolean tarpit,
            boolean maxconn,
            boolean timeout) {}

    private Subject subject(Frontends.Frontend f, Directive rule, AbuserPlan plan, String text) {
        boolean hasTarpit = !f.tarpits().isEmpty();
        long hold = f.tarpitHoldMillis();
        long slots = f.maxconn().effective();
        long held = (long) Math.ceil(o.clientRps() * hold / 1000.0);
        boolean timeout =
                want(TIMEOUT)
                        && f.http()
                        && (!f.httpRequest().set() || f.httpRequest().millis() == 0);
        return new Subject(
                f,
                plan,
                text,
                hold,
                slots,
                held,
                hasTarpit,
                want(TARPIT) && hasTarpit,
                want(MAXCONN) && hasTarpit && slots > 0 && held * 4 >= slots,
                timeout);
    }

    /**
     * The flood of the configuration as it is, shared by the tarpit and maxconn proofs; null (and
     * their inconclusive or could-not-run proofs added) when it cannot run or neither applies.
     */
    private RunResult floodBefore(Ctx ctx, Subject s, List<Proof> proofs) throws IOException {
        if (!s.tarpit() && !s.maxconn()) {
            return null;
        }
        String name = s.f().name();
        String tooShort = lengthenFlood(s);
        if (tooShort != null) {
            if (s.tarpit()) {
                proofs.add(Proof.inconclusive(TARPIT, name, tooShort));
            }
            if (s.maxconn()) {
                proofs.add(Proof.inconclusive(MAXCONN, name, tooShort));
            }
            return null;
        }
        String unsatisfiable = s.plan().unsatisfiable();
        if (unsatisfiable != null) {
            proofs.add(Proof.couldNotRun(TARPIT, name, unsatisfiable));
            if (s.maxconn()) {
                proofs.add(Proof.couldNotRun(MAXCONN, name, unsatisfiable));
            }
            return null;
        }
        return checked(flood(ctx, "before", s.text(), o.clientRps()));
    }

    /**
     * Lengthens the flood runs to the time the slots need to fill (up to {@link #MAX_RUN_MS}); the
     * inconclusive verdict when that is longer, else null.
     */
    private String lengthenFlood(Subject s) {
        long need = neededMs(o.clientRps(), s.hold(), s.slots());
        if (need <= runMs) {
            return null;
        }
        String fills =
                "at "
                        + fmt(o.clientRps())
                        + " req/s the "
                        + s.slots()
                        + " slots fill after "
                        + secs((long) Math.ceil(s.slots() * 1000.0 / o.clientRps()))
                        + " (each request holds one for "
                        + secs(s.hold())
                        + ")";
        if (need > MAX_RUN_MS) {
            return "inconclusive: needs a run of at least "
                    + secs(need)
                    + " ("
                    + fills
                    + "), more than deja's cap of "
                    + secs(MAX_RUN_MS)
                    + "; the scan's arithmetic stands";
        }
        lengthened =
                "flood runs lengthened from "
                        + secs(o.durationMs())
                        + " to "
                        + secs(need)
                        + ": "
                        + fills
                        + ", and a legitimate client waits up to "
                        + secs(o.legitTimeoutMs());
        runMs = need;
        return null;
    }

    /** The run, unless haproxy -c refused the sandbox copy (then exit 2 with its reason). */
    private static RunResult checked(RunResult r) {
        if (!r.ran() && r.error().startsWith("haproxy -c")) {
            throw new SandboxRejected(r.error());
        }
        return r;
    }

    /** Rate-limited without a tarpit (the fixed config): the same flood, to show that it holds. */
    private Proof rateLimitAlone(Ctx ctx, Subject s) throws IOException {
        if (s.plan().unsatisfiable() != null) {
            return Proof.couldNotRun(TARPIT, s.f().name(), s.plan().unsatisfiable());
        }
        RunResult only = checked(flood(ctx, "as is (no tarpit)", s.text(), o.clientRps()));
        return Proof.of(TARPIT, s.f().name(), only, null, null);
    }

    private Proof tarpitFixed(Ctx ctx, Subject s, RunResult before) throws IOException {
        Remedy r = Remedy.of(TARPIT, s.text(), s.f(), Map.of());
        RunResult after = flood(ctx, "after (deny)", r.text(), o.clientRps());
        Proof p = Proof.of(TARPIT, s.f().name(), before, after, r);
        if (o.findLimit() && before.ran() && after.ran() && !stop.getAsBoolean()) {
            p =
                    p.withFindLimit(
                            findLimit(ctx, s.text(), r.text(), before, after, s.hold(), s.slots()));
        }
        return p;
    }

    private Proof maxconnRaised(Ctx ctx, Subject s, RunResult before) throws IOException {
        long wanted = Math.max(s.slots(), s.held() * 4);
        Remedy r =
                Remedy.of(
                        MAXCONN, s.text(), s.f(), Map.of("wantedMaxconn", String.valueOf(wanted)));
        RunResult after = flood(ctx, "after (maxconn " + wanted + ")", r.text(), o.clientRps());
        return Proof.of(MAXCONN, s.f().name(), before, after, r);
    }

    private Proof timeoutSet(Ctx ctx, Subject s) throws IOException {
        runMs = Math.max(o.durationMs(), HTTP_REQUEST_TIMEOUT_MS + 3000);
        if (runMs > o.durationMs()) {
            slowLengthened =
                    "slow-client runs lengthened from "
                            + secs(o.durationMs())
                            + " to "
                            + secs(runMs)
                            + ": the fix (timeout http-request "
                            + HTTP_REQUEST_TIMEOUT_MS / 1000
                            + "s) can only show after its timeout";
        }
        RunResult sb = checked(slow(ctx, "before", s.text()));
        Remedy r = Remedy.of(TIMEOUT, s.text(), s.f(), Map.of());
        RunResult sa = slow(ctx, "after (timeout http-request 5s)", r.text());
        return Proof.slow(TIMEOUT, s.f().name(), sb, sa, r, runMs, HTTP_REQUEST_TIMEOUT_MS);
    }

    private Proof noProvableRule(Frontends.Frontend f) {
        return Proof.couldNotRun(
                o.rule() == null ? "(none)" : o.rule(),
                f.name(),
                "no provable rule applies to "
                        + f.section().label()
                        + (o.rule() == null ? "" : " for --rule " + o.rule())
                        + " (deja proves "
                        + String.join(", ", RULES)
                        + ")");
    }

    /** The sandbox copy could not be checked by haproxy -c: exit 2 with the reason. */
    public static final class SandboxRejected extends InputException {
        private static final long serialVersionUID = 1L;

        SandboxRejected(String why) {
            super(why);
        }
    }

    /** The time the runs took together (calm phases included), the floor of a prove's duration. */
    private long runMillis;

    private String lengthened;
    private String slowLengthened;

    static String secs(long ms) {
        return ms % 1000 == 0
                ? ms / 1000 + " s"
                : String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
    }

    private boolean want(String id) {
        return o.rule() == null || o.rule().equals(id);
    }

    private String workload(AbuserPlan plan, boolean flood, boolean slow) {
        String attack =
                (flood
                                ? "abuser "
                                        + fmt(o.clientRps())
                                        + " req/s, "
                                        + (plan.how() == null ? "not singled out" : plan.how())
                                        + "; "
                                : "")
                        + (slow
                                ? "slow clients as many as the frontend's slots, one header byte"
                                        + " per second, from "
                                        + AbuserPlan.ABUSER_ADDRESS
                                        + ", each on one connection that it does not reopen; "
                                : "");
        return attack
                + "legitimate clients "
                + fmt(o.legitRps())
                + " req/s from 127.1.0.1-"
                + AbuserPlan.LEGIT_ADDRESSES
                + (o.legitRpsGiven() ? "" : " (an assumed load: give yours with --legit-rps)")
                + " with a "
                + o.legitTimeoutMs() / 1000.0
                + " s timeout; stub backend answers 200 after "
                + o.serviceTimeMs()
                + " ms; "
                + o.durationMs() / 1000.0
                + " s per run"
                + (lengthened == null ? "" : "; " + lengthened)
                + (slowLengthened == null ? "" : "; " + slowLengthened);
    }

    static String fmt(double rps) {
        return rps == Math.rint(rps) ? String.valueOf((long) rps) : String.valueOf(rps);
    }

    private record Ctx(
            Cleanup cleanup,
            StubBackend stub,
            String frontend,
            String display,
            List<String> changes) {}

    /**
     * Sets up haproxy on the sandbox copy of {@code text}; returns null and a failed result through
     * {@code fail}.
     */
    private final class Instance implements AutoCloseable {
        Process process;
        Sandbox sandbox;
        String error;
        long slots = -1;

        Instance(Ctx ctx, String label, String text) throws IOException {
            fe = ctx.frontend();
            HaproxyConfig cfg = parseHere(ctx.display(), text);
            Frontends.Frontend f = target(cfg, ctx.frontend());
            AbuserPlan plan = AbuserPlan.of(f, abuserRule(f));
            Path dir = ctx.cleanup().dir().resolve("r" + (++runs));
            // not createDirectories: after Ctrl-C the clean-up hook deletes the sandbox folder, and
            // a run starting
            // meanwhile must fail instead of creating it again (it was left behind when that
            // happened after the hook)
            Files.createDirectory(dir);
            sandbox =
                    Sandbox.write(
                            cfg,
                            dir,
                            ctx.stub().port(),
                            plan.aclRewrites(),
                            Sandbox.globalMaxconnCap(),
                            home);
            if (ctx.changes().isEmpty()) {
                ctx.changes().add("isolation: " + isolation.description());
                ctx.changes().addAll(sandbox.changes());
                ctx.changes().addAll(plan.notes());
            }
            Path file = dir.resolve("haproxy.cfg");
            Files.writeString(file, sandbox.text());
            HaproxyBinary.Result check = haproxy.check(file, isolation);
            if (check.exit() != 0) {
                error =
                        "haproxy -c rejected the sandbox copy of "
                                + ctx.display()
                                + ": "
                                + firstErrors(check.output());
                return;
            }
            progress.println(
                    "deja: prove: "
                            + label
                            + ": haproxy on 127.0.0.1:"
                            + sandbox.frontendPorts().get(ctx.frontend()));
            progress.flush();
            process = haproxy.start(file, dir.resolve("haproxy.log"), isolation);
            ctx.cleanup().add(process);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (true) {
                try {
                    String info = StatsSampler.command(sandbox.socket(), "show info");
                    long max = parseLong(StatsSampler.info(info).get("MaxConn"));
                    long[] fe =
                            StatsSampler.frontendRow(
                                    StatsSampler.command(sandbox.socket(), "show stat"),
                                    ctx.frontend());
                    slots = fe[1] > 0 ? (max > 0 ? Math.min(fe[1], max) : fe[1]) : max;
                    break;
                } catch (IOException e) {
                    if (!process.isAlive()) {
                        error = "haproxy exited at start: " + tail(dir.resolve("haproxy.log"));
                        return;
                    }
                    if (System.nanoTime() > deadline) {
                        error = "haproxy did not answer on its stats socket within 5 s";
                        return;
                    }
                    sleep(20);
                }
            }
        }

        InetSocketAddress address() throws IOException {
            Integer port = sandbox.frontendPorts().get(fe());
            return new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port);
        }

        private final String fe;

        String fe() {
            return fe;
        }

        @Override
        public void close() {
            Cleanup.stop(process);
        }
    }

    private RunResult flood(Ctx ctx, String label, String text, double rps) throws IOException {
        return exercise(ctx, label, text, rps, false);
    }

    private RunResult slow(Ctx ctx, String label, String text) throws IOException {
        return exercise(ctx, label, text, 0, true);
    }

    private RunResult exercise(Ctx ctx, String label, String text, double rps, boolean slowClients)
            throws IOException {
        try (Instance in = new Instance(ctx, label, text)) {
            if (in.error != null) {
                return RunResult.failed(label, in.error);
            }
            AbuserPlan plan = plan(ctx, text);
            LoadGenerator.Client legit = legit(plan);
            LoadGenerator gen = new LoadGenerator(in.address(), LoadGenerator.MAX_OPEN);
            // calm baseline: legitimate clients alone
            long calm = Math.min(500, runMs / 4);
            List<LoadGenerator.Outcome> base = gen.run(List.of(legit), calm, stop);
            runMillis += calm + runMs;
            long baseP50 = base.get(0).percentileMicros(50);
            long slots = in.slots;
            if (slowClients && (slots <= 0 || slots > LoadGenerator.MAX_OPEN - 64)) {
                return RunResult.failed(
                        label,
                        "the frontend's slots ("
                                + (slots <= 0 ? "unknown" : slots)
                                + ") are more than the "
                                + (LoadGenerator.MAX_OPEN - 64)
                                + " slow connections deja opens at most");
            }
            LoadGenerator.Client attacker = attacker(plan, slowClients, slots, rps);
            List<LoadGenerator.Outcome> out;
            List<StatsSampler.Sample> samples;
            try (StatsSampler sampler = new StatsSampler(in.sandbox.socket(), ctx.frontend())) {
                out = gen.run(List.of(attacker, legit), runMs, stop);
                samples = sampler.samples();
            }
            return new RunResult(
                    label,
                    null,
                    rps,
                    runMs,
                    out.get(1),
                    out.get(0),
                    samples,
                    slots,
                    baseP50,
                    null,
                    base.get(0));
        }
    }

    /**
     * The abuser plan for the frontend of that config; on a stats page alone (no backend server),
     * the legitimate clients read the stats page.
     */
    private AbuserPlan plan(Ctx ctx, String text) {
        HaproxyConfig cfg = parseHere(ctx.display(), text);
        Frontends.Frontend f = target(cfg, ctx.frontend());
        AbuserPlan plan = AbuserPlan.of(f, abuserRule(f));
        Directive statsUri = f.section().effective("stats", "uri");
        if (plan.pathPrefix() == null
                && f.backends().stream()
                        .allMatch(
                                b ->
                                        b.equals(f.section().name())
                                                && f.section().all(d -> d.is("server")).isEmpty())
                && statsUri != null
                && statsUri.word(2) != null) {
            plan =
                    plan.withPathPrefix(
                            statsUri.word(2)); // a stats page: the legitimate clients read it
        }
        return plan;
    }

    /** The legitimate clients: one source address each, at --legit-rps. */
    private LoadGenerator.Client legit(AbuserPlan plan) throws IOException {
        List<InetAddress> legitSources = new ArrayList<>();
        List<String> legitRequests = new ArrayList<>();
        for (int i = 0; i < AbuserPlan.LEGIT_ADDRESSES; i++) {
            legitSources.add(InetAddress.getByName("127.1.0." + (i + 1)));
            legitRequests.add(plan.request(false, i));
        }
        return LoadGenerator.Client.http(
                "legitimate", legitSources, legitRequests, o.legitRps(), o.legitTimeoutMs());
    }

    /**
     * The attacker from the abuser address: as many slow clients as the frontend has slots, or one
     * client sending the plan's abusing request at {@code rps}.
     */
    private LoadGenerator.Client attacker(
            AbuserPlan plan, boolean slowClients, long slots, double rps) throws IOException {
        if (slowClients) {
            return LoadGenerator.Client.slow(
                    "slow clients",
                    List.of(InetAddress.getByName(AbuserPlan.ABUSER_ADDRESS)),
                    (int) slots,
                    1000);
        }
        return LoadGenerator.Client.http(
                "abuser",
                List.of(InetAddress.getByName(AbuserPlan.ABUSER_ADDRESS)),
                List.of(plan.request(true, 0)),
                rps,
                o.legitTimeoutMs());
    }

    /**
     * The margin (on by default, {@code --no-find-limit} turns it off): the client rate at which
     * legitimate traffic starts failing before the fix ({@value #SEARCH_BEFORE} more runs at most,
     * bisecting between 1 req/s and {@value #CEILING_RPS}), and whether the fix holds up to the
     * ceiling ({@value #SEARCH_AFTER} run). A search run lasts what its rate needs to reach its
     * steady state (at least 3 s, at most the run length).
     */
    private FindLimit findLimit(
            Ctx ctx,
            String beforeText,
            String afterText,
            RunResult before,
            RunResult after,
            long hold,
            long slots)
            throws IOException {
        List<double[]> points = new ArrayList<>();
        long full = runMs;
        try {
            Double beforeLimit =
                    search(
                            ctx,
                            beforeText,
                            before,
                            SEARCH_BEFORE,
                            points,
                            "before",
                            hold,
                            slots,
                            full);
            Double afterLimit =
                    after.degraded()
                            ? Double.valueOf(after.clientRps())
                            : search(
                                    ctx,
                                    afterText,
                                    after,
                                    SEARCH_AFTER,
                                    points,
                                    "after",
                                    hold,
                                    slots,
                                    full);
            return new FindLimit(beforeLimit, afterLimit, CEILING_RPS, points);
        } finally {
            runMs = full;
        }
    }

    /** The lowest rate seen failing after bisecting (null: none failed up to the ceiling). */
    private Double search(
            Ctx ctx,
            String text,
            RunResult first,
            int budget,
            List<double[]> points,
            String which,
            long hold,
            long slots,
            long full)
            throws IOException {
        double ok = 0;
        double bad = Double.NaN;
        double r = first.clientRps();
        boolean isBad = first.degraded();
        point(points, which, r, first);
        if (isBad) {
            bad = r;
        } else {
            ok = r;
        }
        for (int i = 0; i < budget && !stop.getAsBoolean(); i++) {
            double next;
            if (Double.isNaN(bad)) {
                if (ok >= CEILING_RPS) {
                    break;
                }
                // after the fix, straight to the ceiling ("holds up to 5,000 req/s"); before it,
                // climb by 4x
                next =
                        which.equals("after") || ok * 4 >= CEILING_RPS || i == budget - 1
                                ? CEILING_RPS
                                : ok * 4;
            } else if (ok == 0) {
                next = Math.max(1, Math.floor(bad / 4));
            } else {
                if (bad - ok <= Math.max(10, ok * 0.1)) {
                    break;
                }
                next = Math.round((ok + bad) / 2);
            }
            runMs = Math.min(full, Math.max(3000, neededMs(next, hold, slots)));
            RunResult rr = flood(ctx, which + " (margin " + fmt(next) + " req/s)", text, next);
            if (!rr.ran()) {
                break;
            }
            boolean d = rr.degraded();
            if (d && which.equals("after") && hostLimited(rr, next, slots)) {
                // the fix in place, legitimate requests failed without what the finding is about:
                // this host could not drive the rate, which says nothing of the fix
                points.add(new double[] {1, next, HOST_LIMITED, rr.legitSuccessPct()});
                break;
            }
            point(points, which, next, rr);
            if (d) {
                bad = next;
            } else {
                ok = next;
            }
        }
        return Double.isNaN(bad) ? null : bad;
    }

    /** A margin point's mark: legitimate traffic failed for this host's limit, not the config's. */
    static final double HOST_LIMITED = 2;

    /**
     * A run that failed because the host could not drive it: the load generator sent less than 90%
     * of the requests the rate asks for (it fell behind on a busy machine), or HAProxy's slots were
     * never seen full although legitimate requests failed (the slots are what every proved finding
     * exhausts).
     */
    static boolean hostLimited(RunResult rr, double rps, long slots) {
        boolean behind =
                rr.abuser() != null
                        && rr.durationMs() > 0
                        && rr.abuser().sent * 1000.0 / rr.durationMs() < 0.9 * rps;
        boolean slotsNeverFull = slots > 0 && !rr.samples().isEmpty() && rr.fullMillis() == 0;
        return behind || slotsNeverFull;
    }

    /**
     * One run of the margin search as a point of its figure: before/after, rate, broke, success.
     */
    private static void point(List<double[]> points, String which, double rps, RunResult run) {
        points.add(
                new double[] {
                    which.equals("before") ? 0 : 1,
                    rps,
                    run.degraded() ? 1 : 0,
                    run.legitSuccessPct()
                });
    }

    private static String firstErrors(String output) {
        List<String> lines = new ArrayList<>();
        for (String l : output.split("\n")) {
            if (l.contains("[ALERT]") || l.contains("[WARNING]")) {
                lines.add(l.replaceAll("^\\[ALERT\\]\\s*\\(\\d+\\)\\s*:\\s*", "").strip());
            }
        }
        if (lines.isEmpty()) {
            for (String l : output.split("\n")) {
                if (!l.isBlank()) {
                    lines.add(l.strip());
                }
            }
        }
        return String.join(" | ", lines.subList(0, Math.min(3, lines.size())));
    }

    private static String tail(Path log) {
        try {
            List<String> l = Files.readAllLines(log);
            return firstErrors(String.join("\n", l.subList(Math.max(0, l.size() - 5), l.size())));
        } catch (IOException e) {
            return "(no output)";
        }
    }

    private static long parseLong(String s) {
        try {
            return s == null ? -1 : Long.parseLong(s.strip());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
