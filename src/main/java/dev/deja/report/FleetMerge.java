package dev.deja.report;

import dev.deja.engine.Catalog;
import dev.deja.engine.Coverage;
import dev.deja.engine.Figure;
import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Severity;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code deja report merge}: many scan reports (JSON, schema 1.x) into one fleet report. Pure: the
 * caller lists the reports (files, folders, S3) with when each was written and the target name
 * their place gives them; this reads them newest first, so that a target's latest report wins and
 * its older ones are only counted; the same finding (same fingerprint) on several targets is one
 * finding that lists them. Memory: one report's tree at a time, plus the distinct findings (their
 * text shared through one table of strings) and the target lists.
 *
 * <p>Where a report names its target (the {@code targets} list and each finding's and coverage
 * entry's {@code target} of reports written by a multi-target run) that is its target; a report
 * that names none (schema 1.1 and files) is the target its place gives it.
 */
public final class FleetMerge {
    /**
     * A report to read: where it is, when it was written, the target its place names, how to read
     * it.
     */
    public record Input(String origin, Instant storedAt, String placeTarget, Content content) {}

    /** The bytes of a report, read only when it is merged. */
    @FunctionalInterface
    public interface Content {
        byte[] read() throws IOException;
    }

    /** Bad inputs, "origin: why" (also in {@link Fleet#unreadable()}). */
    private final List<String> errors = new ArrayList<>();

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** The rule that compares clusters' workloads, which a merge of reports cannot run. */
    static final String CRITICAL_IN_ONE_CLUSTER = "k8s-critical-in-one-cluster";

    private final Instant now;
    private final Duration stale;

    private final Map<String, String> strings = new HashMap<>();

    /** Accepted targets by key, in the order they were met (newest report first). */
    private final Map<String, TargetState> targets = new LinkedHashMap<>();

    /** fingerprint -> merged finding */
    private final Map<String, Merged> findings = new HashMap<>();

    private final Set<String> rulesRun = new TreeSet<>();
    private int read;
    private int superseded;

    private static final class TargetState {
        final int index;
        final String name;
        final String cluster;
        final String account;
        final String origin;
        final Instant storedAt;
        final Map<Severity, Integer> bySeverity = new EnumMap<>(Severity.class);
        final List<Coverage.Entry> gaps = new ArrayList<>();
        final Set<String> sources = new TreeSet<>();
        boolean complete = true;

        TargetState(
                int index,
                String name,
                String cluster,
                String account,
                String origin,
                Instant storedAt) {
            this.index = index;
            this.name = name;
            this.cluster = cluster;
            this.account = account;
            this.origin = origin;
            this.storedAt = storedAt;
        }
    }

    private static final class Merged {
        Finding finding;

        /** Target indexes, ascending as added (each once). */
        int[] targets = new int[2];

        int n;

        /**
         * Adds target {@code t} unless already there; false when it was. Targets are numbered as
         * their (one) report is read, so a repeat can only be among those of the report being read:
         * indexes from {@code base} on.
         */
        boolean add(int t, int base) {
            for (int i = n - 1; i >= 0 && targets[i] >= base; i--) {
                if (targets[i] == t) {
                    return false; // the same finding twice in one target's report
                }
            }
            if (n == targets.length) {
                targets = Arrays.copyOf(targets, n * 2);
            }
            targets[n++] = t;
            return true;
        }
    }

    private final String toolVersion;

    /**
     * @param now what ages and staleness are judged against
     * @param stale a target whose latest report is older is stale
     * @param toolVersion this deja's version: reports it wrote are matched by their own
     *     fingerprints
     */
    public FleetMerge(Instant now, Duration stale, String toolVersion) {
        this.now = now;
        this.stale = stale;
        this.toolVersion = toolVersion;
    }

    /** "origin: why" for each input that could not be read as a deja JSON report. */
    public List<String> errors() {
        return List.copyOf(errors);
    }

    /** Reads every input, newest first (ties: the later origin name first). */
    public FleetMerge addAll(List<Input> inputs) {
        return addAll(inputs, 1);
    }

    /**
     * As {@link #addAll(List)}, fetching up to {@code readAhead} reports ahead of the one being
     * merged on as many threads (S3: one GET at a time would wait a round trip per report); they
     * are still merged one by one in order.
     */
    public FleetMerge addAll(List<Input> inputs, int readAhead) {
        List<Input> order = new ArrayList<>(inputs);
        order.sort(Comparator.comparing(Input::storedAt).thenComparing(Input::origin).reversed());
        if (readAhead <= 1 || order.size() < 2) {
            for (Input in : order) {
                add(in, null);
            }
            return this;
        }
        AtomicInteger n = new AtomicInteger();
        ExecutorService pool =
                Executors.newFixedThreadPool(
                        readAhead,
                        r -> {
                            Thread t = new Thread(r, "deja-merge-read-" + n.incrementAndGet());
                            t.setDaemon(true);
                            return t;
                        });
        try {
            ArrayDeque<Future<byte[]>> ahead = new ArrayDeque<>();
            int next = 0;
            for (Input in : order) {
                while (next < order.size() && ahead.size() < readAhead) {
                    Content c = order.get(next++).content();
                    ahead.add(pool.submit(c::read));
                }
                add(in, ahead.poll());
            }
        } finally {
            pool.shutdownNow();
        }
        return this;
    }

    private void add(Input in, Future<byte[]> fetched) {
        JsonNode root = root(in, fetched);
        if (root == null) {
            return;
        }
        boolean legacy = root.path("schemaVersion").asString("").equals("1.0");
        // the fingerprint a report of this very deja version wrote is the one it would compute; any
        // other version's is recomputed from the finding's parts (as --baseline does), so a fleet
        // of mixed versions still matches
        boolean sameVersion =
                !legacy && root.path("tool").path("version").asString("").equals(toolVersion);
        // targets this report names (a multi-target run), else the one its place gives it
        List<String[]> named = new ArrayList<>();
        for (JsonNode t : root.path("targets")) {
            String[] ca = targetOf(t);
            if (ca != null) {
                named.add(ca);
            }
        }
        // a finding or gap without a target belongs to the report's one target, else to the target
        // its place names
        String placeKey = "n:" + in.placeTarget();
        String defaultKey = named.size() == 1 ? key(named.get(0)) : placeKey;
        // the report's targets: those it names, those its findings and gaps name, and its place
        // when something names none: nothing in it is left without a target
        Map<String, String[]> wanted = new LinkedHashMap<>();
        for (String[] ca : named) {
            wanted.put(key(ca), new String[] {label(ca), ca[0], ca[1]});
        }
        Parsed p = parse(root, in, legacy, sameVersion, wanted, defaultKey);
        if (p == null) {
            return;
        }
        read++;
        Map<String, TargetState> here = new HashMap<>();
        for (JsonNode e : root.path("coverage").path("entries")) {
            want(wanted, e, defaultKey, in.placeTarget());
        }
        if (wanted.isEmpty()) {
            wanted.put(
                    placeKey,
                    new String[] {in.placeTarget(), null, null}); // a report with nothing in it
        }
        for (Map.Entry<String, String[]> w : wanted.entrySet()) {
            accept(here, w.getKey(), w.getValue()[0], w.getValue()[1], w.getValue()[2], in);
        }
        if (here.isEmpty()) {
            return; // every target of this report has a newer one (counted in superseded)
        }
        for (JsonNode r : root.path("summary").path("rulesRun")) {
            rulesRun.add(intern(r.asString()));
        }
        for (JsonNode s : root.path("summary").path("sources")) {
            here.values().forEach(t -> t.sources.add(s.asString()));
        }
        gaps(root, here, defaultKey);
        merge(p, here);
    }

    /**
     * The report's tree, or null (the error noted) when it cannot be read or is not a deja JSON
     * report.
     */
    private JsonNode root(Input in, Future<byte[]> fetched) {
        JsonNode root;
        try {
            byte[] bytes = fetched == null ? in.content().read() : fetched(fetched);
            root = JSON.readTree(bytes);
        } catch (JacksonException e) {
            errors.add(
                    in.origin()
                            + ": not a deja JSON report (not valid JSON: "
                            + e.getOriginalMessage().lines().findFirst().orElse("")
                            + ")");
            return null;
        } catch (IOException e) {
            errors.add(in.origin() + ": cannot read: " + e.getMessage());
            return null;
        }
        String why = check(root);
        if (why != null) {
            errors.add(in.origin() + ": " + why);
            return null;
        }
        return root;
    }

    /** A report's findings as read, in order, before they are merged: one entry each per list. */
    private static final class Parsed {
        final List<JsonNode> parsed = new ArrayList<>();

        /** null: not built yet (its stored fingerprint was enough). */
        final List<Finding> built = new ArrayList<>();

        final List<Severity> parsedSev = new ArrayList<>();
        final List<String> parsedTarget = new ArrayList<>();
        final List<String> parsedFp = new ArrayList<>();
    }

    /**
     * The report's findings with their severity, fingerprint and target key (the targets they name
     * added to {@code wanted}); null (the error noted) when one lacks a required member.
     */
    private Parsed parse(
            JsonNode root,
            Input in,
            boolean legacy,
            boolean sameVersion,
            Map<String, String[]> wanted,
            String defaultKey) {
        Parsed p = new Parsed();
        int i = 0;
        for (JsonNode f : root.path("findings")) {
            Severity sev = valid(f);
            if (sev == null) {
                errors.add(
                        in.origin()
                                + ": finding "
                                + i
                                + " has no ruleId, severity, message or location");
                return null;
            }
            String stored = sameVersion ? text(f, "fingerprint") : null;
            Finding finding = stored != null ? null : finding(f);
            p.parsed.add(f);
            p.built.add(finding);
            p.parsedSev.add(sev);
            p.parsedFp.add(
                    stored != null
                            ? stored
                            : legacy ? finding.legacyFingerprint() : finding.fingerprint());
            p.parsedTarget.add(want(wanted, f, defaultKey, in.placeTarget()));
            i++;
        }
        return p;
    }

    /**
     * The report's denied and failed coverage entries, as gaps of the targets it is the latest of.
     */
    private static void gaps(JsonNode root, Map<String, TargetState> here, String defaultKey) {
        for (JsonNode e : root.path("coverage").path("entries")) {
            TargetState t = here.get(targetKey(e, defaultKey));
            if (t == null) {
                continue; // a target a newer report covers
            }
            String status = e.path("status").asString("");
            if (status.equals("denied") || status.equals("failed")) {
                t.complete = false;
                t.gaps.add(
                        new Coverage.Entry(
                                e.path("source").asString("kubernetes"),
                                t.name + ": " + e.path("scope").asString(""),
                                status.equals("denied")
                                        ? Coverage.Status.DENIED
                                        : Coverage.Status.FAILED,
                                e.has("detail") ? e.path("detail").asString() : null,
                                -1));
            }
        }
    }

    /**
     * The report's findings into the merged ones, on the targets it is the latest of: a finding met
     * again gains the target, and keeps the most severe verdict.
     */
    private void merge(Parsed p, Map<String, TargetState> here) {
        List<JsonNode> parsed = p.parsed;
        List<Finding> built = p.built;
        List<Severity> parsedSev = p.parsedSev;
        List<String> parsedTarget = p.parsedTarget;
        List<String> parsedFp = p.parsedFp;
        int base = targets.size() - here.size(); // this report's targets have the last indexes
        for (int k = 0; k < parsed.size(); k++) {
            TargetState t = here.get(parsedTarget.get(k));
            if (t == null) {
                continue; // a target a newer report covers
            }
            Severity sev = parsedSev.get(k);
            Merged m = findings.computeIfAbsent(parsedFp.get(k), x -> new Merged());
            boolean added = m.add(t.index, base);
            if (m.finding == null || sev.compareTo(m.finding.severity()) > 0) {
                // the most severe verdict among the targets (severity overrides differ); built only
                // when kept
                m.finding = built.get(k) != null ? built.get(k) : finding(parsed.get(k));
            }
            if (added) {
                t.bySeverity.merge(sev, 1, Integer::sum);
            }
        }
    }

    private static byte[] fetched(Future<byte[]> f) throws IOException {
        try {
            return f.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IOException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
    }

    private void accept(
            Map<String, TargetState> here,
            String key,
            String name,
            String cluster,
            String account,
            Input in) {
        if (targets.containsKey(key)) {
            superseded++; // a newer report of this target was read first
            return;
        }
        TargetState t =
                new TargetState(
                        targets.size(), intern(name), cluster, account, in.origin(), in.storedAt());
        targets.put(key, t);
        here.put(key, t);
    }

    /** Why this is not a deja JSON report deja can merge, or null. */
    private static String check(JsonNode root) {
        if (root == null
                || !root.isObject()
                || !root.has("schemaVersion")
                || !root.path("findings").isArray()
                || !root.path("tool").path("name").asString("").equals("deja")) {
            return "not a deja JSON report (write one with --format json or --output json=...)";
        }
        String v = root.path("schemaVersion").asString("");
        if (!v.matches("1\\.\\d+")) {
            return "report schema " + v + " is not one this deja reads (1.x)";
        }
        if (root.has("fleet")) {
            return "is a fleet report (deja report merge); merge the scans' own reports";
        }
        if (!root.path("coverage").path("entries").isArray() || !root.path("summary").isObject()) {
            return "not a deja JSON report (no summary or coverage)";
        }
        return null;
    }

    /** {cluster, account} of a target object, or null when it names neither. */
    private static String[] targetOf(JsonNode t) {
        if (t == null || !t.isObject()) {
            return null;
        }
        String c = text(t, "cluster");
        String a = text(t, "account");
        return c == null && a == null ? null : new String[] {c, a};
    }

    private static String key(String[] ca) {
        return "t:" + (ca[0] == null ? "" : ca[0]) + "|" + (ca[1] == null ? "" : ca[1]);
    }

    private static String label(String[] ca) {
        return ca[0] != null && ca[1] != null
                ? ca[0] + " (" + ca[1] + ")"
                : ca[0] != null ? ca[0] : ca[1];
    }

    /**
     * The key of the target a finding or coverage entry belongs to, added to {@code wanted} when
     * new.
     */
    private static String want(
            Map<String, String[]> wanted, JsonNode n, String defaultKey, String place) {
        String[] ca = targetOf(n.get("target"));
        if (ca != null) {
            wanted.putIfAbsent(key(ca), new String[] {label(ca), ca[0], ca[1]});
            return key(ca);
        }
        wanted.putIfAbsent(
                defaultKey, new String[] {place, null, null}); // (a named one is there already)
        return defaultKey;
    }

    private static String targetKey(JsonNode n, String defaultKey) {
        String[] ca = targetOf(n.get("target"));
        return ca == null ? defaultKey : key(ca);
    }

    /** The finding's severity when it has the fields a finding needs, else null. */
    private static Severity valid(JsonNode f) {
        if (!f.path("ruleId").isString()
                || !f.path("message").isString()
                || !f.path("location").isObject()) {
            return null;
        }
        try {
            return Severity.parse(f.path("severity").asString(""));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private Finding finding(JsonNode f) {
        String rule = text(f, "ruleId");
        String message = text(f, "message");
        JsonNode l = f.path("location");
        Severity sev;
        try {
            sev = Severity.parse(f.path("severity").asString(""));
        } catch (IllegalArgumentException e) {
            sev = null;
        }
        if (rule == null || message == null || !l.isObject() || sev == null) {
            return null;
        }
        Location loc =
                new Location(
                        intern(text(l, "file")),
                        l.has("line") ? l.path("line").asInt() : null,
                        intern(text(l, "kind")),
                        intern(text(l, "namespace")),
                        intern(text(l, "name")),
                        intern(text(l, "key")),
                        intern(text(l, "arn")),
                        intern(text(l, "region")));
        List<String> notes = strings(f.path("notes"));
        Figure figure = null;
        JsonNode fig = f.get("figure");
        if (fig != null && !fig.isNull()) {
            try {
                figure = FigureJson.read(fig);
            } catch (FigureJson.Unreadable e) {
                // the finding stands; only its picture is not drawn, and the report says why
                notes = new ArrayList<>(notes);
                notes.add("its report's figure is not drawn: " + e.getMessage());
            }
        }
        return new Finding(
                        intern(rule),
                        sev,
                        strings(f.path("caseIds")),
                        intern(message),
                        intern(f.path("remediation").asString("")),
                        loc,
                        strings(f.path("related")),
                        notes,
                        intern(text(f, "key")))
                .withFigure(figure);
    }

    private List<String> strings(JsonNode arr) {
        if (!arr.isArray() || arr.isEmpty()) {
            return List.of();
        }
        List<String> out = new ArrayList<>(arr.size());
        for (JsonNode n : arr) {
            out.add(intern(n.asString()));
        }
        return out;
    }

    private String intern(String s) {
        if (s == null) {
            return null;
        }
        String old = strings.putIfAbsent(s, s);
        return old == null ? s : old;
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null || v.isNull() ? null : v.asString();
    }

    /**
     * The fleet report: one finding per fingerprint with a note naming its targets, one coverage
     * entry per target (read; its scan's gaps; "stale" when its latest report is older than the
     * limit), and the {@link Fleet}.
     */
    public Report report(Catalog catalog, String toolVersion, Severity failOn) {
        List<TargetState> byName = new ArrayList<>(targets.values());
        byName.sort(Comparator.comparing((TargetState t) -> t.name).thenComparing(t -> t.index));
        IdentityHashMap<Finding, List<String>> where = new IdentityHashMap<>(findings.size());
        List<Finding> out = reportFindings(byName, where);
        List<Coverage.Entry> coverage = new ArrayList<>();
        List<Fleet.TargetStatus> status = new ArrayList<>();
        for (TargetState t : byName) {
            status.add(status(t, coverage));
        }
        crossCluster(catalog, byName, coverage);
        ScanResult result =
                new ScanResult(
                        out,
                        List.of(),
                        List.of(),
                        List.copyOf(rulesRun),
                        new Coverage(coverage),
                        0);
        Fleet fleet = new Fleet(now, stale, status, where, read, superseded, errors);
        Map<String, String> scope = scope(fleet, status.size());
        return new Report(
                        result,
                        catalog,
                        toolVersion,
                        failOn,
                        false,
                        null,
                        new Report.RunInfo(now, Duration.ZERO, scope))
                .withFleet(fleet);
    }

    /**
     * The merged findings, sorted, each with a note of the targets it is on (by name); {@code
     * where} gets those targets. Each merged finding is dropped as its report finding is made.
     */
    private List<Finding> reportFindings(
            List<TargetState> byName, IdentityHashMap<Finding, List<String>> where) {
        String[] names = new String[targets.size()];
        int[] rank = new int[targets.size()];
        for (int k = 0; k < byName.size(); k++) {
            names[byName.get(k).index] = byName.get(k).name;
            rank[byName.get(k).index] = k;
        }
        List<Finding> out = new ArrayList<>(findings.size());
        for (Iterator<Merged> it = findings.values().iterator(); it.hasNext(); ) {
            Merged m = it.next();
            it.remove(); // each merged finding is dropped as its report finding is made
            int[] ts = Arrays.copyOf(m.targets, m.n);
            Integer[] order = new Integer[ts.length];
            for (int k = 0; k < ts.length; k++) {
                order[k] = ts[k];
            }
            Arrays.sort(order, Comparator.comparingInt(x -> rank[x]));
            List<String> on = new ArrayList<>(order.length);
            for (Integer t : order) {
                on.add(names[t]);
            }
            List<String> notes = new ArrayList<>(m.finding.notes().size() + 1);
            notes.add(onTargets(on, targets.size()));
            notes.addAll(m.finding.notes());
            Finding f =
                    new Finding(
                                    m.finding.ruleId(),
                                    m.finding.severity(),
                                    m.finding.caseIds(),
                                    m.finding.message(),
                                    m.finding.remediation(),
                                    m.finding.location(),
                                    m.finding.related(),
                                    notes,
                                    m.finding.key())
                            .withFigure(m.finding.figure());
            out.add(f);
            where.put(f, List.copyOf(on));
        }
        out.sort(null);
        return out;
    }

    /**
     * A target's status in the fleet, its coverage entries (read, its gaps, and stale when its
     * latest report is too old) added to {@code coverage}.
     */
    private Fleet.TargetStatus status(TargetState t, List<Coverage.Entry> coverage) {
        boolean isStale = Duration.between(t.storedAt, now).compareTo(stale) > 0;
        String source = t.sources.isEmpty() ? "kubernetes" : t.sources.iterator().next();
        coverage.add(
                new Coverage.Entry(
                        source,
                        t.name + ": report " + t.origin,
                        Coverage.Status.READ,
                        null,
                        t.bySeverity.values().stream().mapToInt(Integer::intValue).sum()));
        coverage.addAll(t.gaps);
        if (isStale) {
            coverage.add(
                    new Coverage.Entry(
                            source,
                            t.name + ": latest report",
                            Coverage.Status.FAILED,
                            "stale: written "
                                    + t.storedAt
                                    + ", "
                                    + Fleet.age(Duration.between(t.storedAt, now))
                                    + " ago, older than --stale "
                                    + duration(stale),
                            -1));
        }
        List<String> gaps = new ArrayList<>();
        for (Coverage.Entry g : t.gaps) {
            gaps.add(
                    g.source()
                            + ": "
                            + g.scope().substring(t.name.length() + 2)
                            + ": "
                            + g.status().name().toLowerCase(Locale.ROOT)
                            + (g.detail() == null ? "" : " (" + g.detail() + ")"));
        }
        return new Fleet.TargetStatus(
                t.name,
                t.cluster,
                t.account,
                t.origin,
                t.storedAt,
                isStale,
                t.bySeverity,
                t.complete,
                gaps);
    }

    /**
     * The rule that compares clusters' workloads, as skipped on a merge of two clusters or more
     * (when the catalog has it).
     */
    private static void crossCluster(
            Catalog catalog, List<TargetState> byName, List<Coverage.Entry> coverage) {
        long clusters =
                byName.stream()
                        .filter(t -> t.cluster != null || t.sources.contains("kubernetes"))
                        .count();
        if (clusters >= 2 && catalog.rule(CRITICAL_IN_ONE_CLUSTER).isPresent()) {
            // a rule that compares clusters needs their workloads, which a report does not hold
            coverage.add(
                    new Coverage.Entry(
                            "kubernetes",
                            "rule " + CRITICAL_IN_ONE_CLUSTER,
                            Coverage.Status.SKIPPED,
                            "not run on the merge: the reports hold findings, not each cluster's"
                                    + " workloads, so a critical workload that runs in only one of the "
                                    + clusters
                                    + " clusters cannot be told (its findings in a report written by one"
                                    + " fleet scan, deja scan --all-contexts, are merged as they are)",
                            -1));
        }
    }

    /** The merged report's scope: how many targets (and stale ones), reports read, when. */
    private Map<String, String> scope(Fleet fleet, int targetCount) {
        Map<String, String> scope = new LinkedHashMap<>();
        long staleN = fleet.staleCount();
        scope.put(
                "fleet",
                targetCount
                        + (targetCount == 1 ? " target" : " targets")
                        + (staleN > 0
                                ? " ("
                                        + staleN
                                        + " stale: no report for more than "
                                        + duration(stale)
                                        + ")"
                                : ""));
        scope.put(
                "reports",
                read
                        + " read, the latest of each target merged"
                        + (superseded > 0 ? " (" + superseded + " older ones left out)" : "")
                        + (errors.isEmpty() ? "" : "; " + errors.size() + " unreadable"));
        scope.put("as of", now.toString());
        return scope;
    }

    /** "on 3 of 5 targets: a, b, c" (at most 10 names, then "and N more"). */
    static String onTargets(List<String> on, int of) {
        String names =
                String.join(", ", on.subList(0, Math.min(10, on.size())))
                        + (on.size() > 10 ? " and " + (on.size() - 10) + " more" : "");
        return "on " + on.size() + " of " + of + (of == 1 ? " target: " : " targets: ") + names;
    }

    /** 48h, 90m, 30s: as --stale takes it. */
    public static String duration(Duration d) {
        long s = d.toSeconds();
        return s % 3600 == 0 ? s / 3600 + "h" : s % 60 == 0 ? s / 60 + "m" : s + "s";
    }

    /** Parses --stale: 48h, 2d, 90m, 3600s. */
    public static Duration parseDuration(String v) {
        Matcher m =
                Pattern.compile("(\\d{1,9})\\s*([smhd])")
                        .matcher(v.strip().toLowerCase(Locale.ROOT));
        if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
            throw new IllegalArgumentException("'" + v + "' is not a duration (e.g. 48h, 2d, 90m)");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
    }
}
