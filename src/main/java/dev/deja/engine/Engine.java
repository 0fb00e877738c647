package dev.deja.engine;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/**
 * Runs the selected rules over a snapshot, applies severity overrides, the minimum severity and
 * suppressions, and sorts the result. Pure: no I/O.
 */
public final class Engine {
    private final Catalog catalog;

    public Engine(Catalog catalog) {
        this.catalog = catalog;
    }

    /** Options of one run. */
    public record Options(
            Severity minSeverity,
            Map<String, Severity> severityOverrides,
            Suppressions ignoreFile,
            Settings settings,
            Supplier<LocalDate> today) {
        /** Options that judge suppressions' expiry on this date. */
        public Options(
                Severity minSeverity,
                Map<String, Severity> severityOverrides,
                Suppressions ignoreFile,
                Settings settings,
                LocalDate today) {
            this(minSeverity, severityOverrides, ignoreFile, settings, () -> today);
        }

        public static Options defaults() {
            return new Options(
                    Severity.INFO, Map.of(), Suppressions.NONE, Settings.EMPTY, todayHere());
        }

        /**
         * Today's date in the JVM's time zone, read when first asked: only a suppression with an
         * {@code expires} date asks, and the time zone database costs a small scan about 5% of its
         * CPU (37 classes, tzdb.dat, a service lookup over the class path).
         */
        public static Supplier<LocalDate> todayHere() {
            return new Supplier<>() {
                private LocalDate today;

                @Override
                public synchronized LocalDate get() {
                    if (today == null) {
                        today = LocalDate.now();
                    }
                    return today;
                }
            };
        }
    }

    /**
     * Every rule's findings, in rule order, on threads of the engine's own (not the common
     * fork-join pool, which other libraries may block).
     */
    private List<List<Finding>> checkAll(
            List<Rule> rules, Snapshot snapshot, Settings settings, List<Coverage.Entry> notes) {
        List<RuleContext> contexts = new ArrayList<>();
        for (Rule rule : rules) {
            contexts.add(new RuleContext(catalog.rule(rule.id()).orElseThrow(), settings));
        }
        try {
            return checkAll(rules, snapshot, contexts);
        } finally {
            contexts.forEach(c -> notes.addAll(c.notChecked()));
        }
    }

    private List<List<Finding>> checkAll(
            List<Rule> rules, Snapshot snapshot, List<RuleContext> contexts) {
        int threads = Math.min(rules.size(), Runtime.getRuntime().availableProcessors());
        if (threads <= 1) {
            List<List<Finding>> out = new ArrayList<>();
            for (int i = 0; i < rules.size(); i++) {
                out.add(rules.get(i).check(snapshot, contexts.get(i)));
            }
            return out;
        }
        ExecutorService pool =
                Executors.newFixedThreadPool(
                        threads,
                        r -> {
                            Thread t = new Thread(r, "deja-rules");
                            t.setDaemon(true);
                            return t;
                        });
        try {
            List<Future<List<Finding>>> futures =
                    new ArrayList<>(Collections.nCopies(rules.size(), null));
            for (int i : startOrder(rules)) {
                Rule rule = rules.get(i);
                RuleContext ctx = contexts.get(i);
                futures.set(i, pool.submit(() -> rule.check(snapshot, ctx)));
            }
            List<List<Finding>> out = new ArrayList<>();
            for (Future<List<Finding>> f : futures) {
                out.add(f.get());
            }
            return out;
        } catch (ExecutionException e) {
            throw Futures.rethrow(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the rules ran", e);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * The order in which the rules start: the costliest first (longest processing time first), a
     * rule started last would run alone while the other threads idle; ties keep the rules' order.
     * The results are still gathered in the rules' order.
     */
    static List<Integer> startOrder(List<Rule> rules) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < rules.size(); i++) {
            order.add(i);
        }
        order.sort(Comparator.comparingInt((Integer i) -> -rules.get(i).cost()));
        return order;
    }

    /** The first inline suppression that matches f, or null (a loop: no stream per finding). */
    private static InlineSuppression firstMatch(List<InlineSuppression> inlines, Finding f) {
        for (int i = 0; i < inlines.size(); i++) {
            if (inlines.get(i).matches(f)) {
                return inlines.get(i);
            }
        }
        return null;
    }

    public ScanResult run(Snapshot snapshot, List<Rule> rules, Options opts) {
        long start = System.nanoTime();
        for (Rule rule : rules) { // an unknown rule fails before any runs
            if (catalog.rule(rule.id()).isEmpty()) {
                throw new CatalogException(
                        "rule " + rule.id() + " has no rules/" + rule.id() + ".yaml");
            }
        }
        // a rule whose Kubernetes kinds were not read from the cluster is not run: the coverage
        // says so instead
        UnreadKinds unreadKinds = new UnreadKinds(snapshot.coverage());
        List<Coverage.Entry> notRun = new ArrayList<>();
        List<Rule> runnable = new ArrayList<>();
        for (Rule rule : rules) {
            String why = unreadKinds.whyNot(rule);
            if (why == null) {
                runnable.add(rule);
            } else {
                // shown as skipped; a kind that could not be read already makes the scan incomplete
                // by its own entry
                notRun.add(
                        new Coverage.Entry("rules", rule.id(), Coverage.Status.SKIPPED, why, -1));
            }
        }
        rules = runnable;
        // rules are pure functions of the snapshot: they run on every core, and their findings are
        // sorted below
        // a rule that could not judge an object (a user rule's expression failed on it) says so
        List<Coverage.Entry> notChecked = new ArrayList<>();
        List<List<Finding>> perRule = checkAll(rules, snapshot, opts.settings(), notChecked);
        notRun.addAll(notChecked);
        List<Finding> raw = new ArrayList<>();
        List<String> ran = new ArrayList<>();
        // a finding on a chart template's rendered output names the template's own line, or none
        LineMap.Files lineMaps = snapshot.part(LineMap.Files.class).orElse(null);
        for (int i = 0; i < rules.size(); i++) {
            ran.add(rules.get(i).id());
            Severity override = opts.severityOverrides().get(rules.get(i).id());
            for (Finding f : perRule.get(i)) {
                if (lineMaps != null) {
                    f = f.withLocation(lineMaps.map(f.location()));
                }
                raw.add(override == null ? f : f.withSeverity(override));
            }
        }
        List<Finding> kept = new ArrayList<>();
        List<ScanResult.Suppressed> suppressed = new ArrayList<>();
        List<InlineSuppression> inlines = snapshot.inlineSuppressions();
        for (Finding f : raw) {
            if (!f.severity().atLeast(opts.minSeverity())) {
                continue;
            }
            InlineSuppression inline = firstMatch(inlines, f);
            if (inline != null) {
                suppressed.add(new ScanResult.Suppressed(f, inline.reason(), inline.origin()));
                continue;
            }
            Suppressions.Entry e = opts.ignoreFile().match(f, opts.today());
            if (e != null) {
                suppressed.add(new ScanResult.Suppressed(f, e.reason(), e.origin()));
                continue;
            }
            kept.add(f);
        }
        Collections.sort(kept);
        suppressed.sort((a, b) -> a.finding().compareTo(b.finding()));
        Collections.sort(ran);
        long ms = (System.nanoTime() - start) / 1_000_000;
        Coverage coverage = snapshot.coverage();
        if (!notRun.isEmpty()) {
            List<Coverage.Entry> all = new ArrayList<>(coverage.entries());
            all.addAll(notRun);
            coverage = new Coverage(all);
        }
        return new ScanResult(
                kept, suppressed, opts.ignoreFile().expired(opts.today()), ran, coverage, ms);
    }
}
