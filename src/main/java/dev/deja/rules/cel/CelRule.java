package dev.deja.rules.cel;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelIssue;
import dev.cel.common.CelOptions;
import dev.cel.common.CelValidationException;
import dev.cel.common.CelValidationResult;
import dev.cel.common.types.MapType;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import dev.cel.runtime.CelVariableResolver;
import dev.deja.engine.Finding;
import dev.deja.engine.InputException;
import dev.deja.engine.Location;
import dev.deja.engine.Rule;
import dev.deja.engine.RuleContext;
import dev.deja.engine.RuleMetadata;
import dev.deja.engine.Severity;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SourceKind;
import dev.deja.model.kube.KubeRaw;
import dev.deja.model.kube.Meta;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A rule written in CEL: a {@link Rule} like the Java ones (same findings, locations, severities,
 * keys, suppressions), judging each object {@code check.for} names. An expression that fails on one
 * object (a missing field, a wrong type) or runs past the cost limit leaves that object not
 * checked, with a note naming the rule and the object; the rest of the scan goes on.
 */
public final class CelRule implements Rule {
    /**
     * Evaluation steps one expression may take on one object before it is stopped (the API server's
     * per-call CEL budget is of the same order); settings key {@value #COST_LIMIT_KEY}.
     */
    public static final long DEFAULT_COST_LIMIT = 1_000_000;

    public static final String COST_LIMIT_KEY = "cel.costLimit";

    /** Notes per rule and scan; past that one note counts the rest. */
    static final int MAX_NOTES = 20;

    private static final CelOptions OPTIONS =
            CelOptions.current().enableTimestampEpoch(false).comprehensionMaxIterations(-1).build();

    /** deja's functions that look objects up (see {@link CheapFirst}). */
    static final Set<String> LOOKUPS =
            Set.of(
                    "isLoadBalancer",
                    "loadBalancer",
                    "pods",
                    "hpaOf",
                    "pdbsOf",
                    "servicesOf",
                    "objects",
                    "backendsOf",
                    "targetGroupsOf");

    private static volatile CelCompiler compiler;
    private static volatile CelRuntime runtime;

    /** Held while the compiler is built, and the runtime: apart, so that both build at once. */
    private static final Object COMPILER_LOCK = new Object();

    private static final Object RUNTIME_LOCK = new Object();

    private final RuleFile file;
    private final List<Compiled> checks;
    private final Set<String> kubeKinds;
    private final Set<String> rawKinds;

    /** One check, compiled. */
    private record Compiled(
            RuleFile.Check check,
            Views.Over over,
            Compilation.Expr when,
            Template message,
            Template key,
            Compilation.Expr severity,
            Compilation.Expr line,
            Template remediation) {}

    private CelRule(RuleFile file, Compilation cel) {
        this.file = file;
        List<Compiled> cs = new ArrayList<>();
        Set<String> kinds = new TreeSet<>();
        Set<String> raw = new TreeSet<>();
        for (RuleFile.Check c : file.checks()) {
            Views.Over over = Views.over(file, c);
            String n = c.name();
            cs.add(
                    new Compiled(
                            c,
                            over,
                            cel.add(c.when(), c.when().value(), 0, SimpleType.BOOL, n + ".when"),
                            Template.of(c.message(), cel),
                            c.key() == null ? null : Template.of(c.key(), cel),
                            c.severity() == null
                                    ? null
                                    : cel.add(
                                            c.severity(),
                                            c.severity().value(),
                                            0,
                                            SimpleType.STRING,
                                            n + ".severity"),
                            c.line() == null
                                    ? null
                                    : cel.add(
                                            c.line(),
                                            c.line().value(),
                                            0,
                                            SimpleType.DYN,
                                            n + ".line"),
                            c.remediation() == null ? null : Template.of(c.remediation(), cel)));
            Set<String> ks = kubeKinds(file, c, over);
            kinds.addAll(ks);
            if (file.metadata().source() == SourceKind.KUBERNETES) {
                ApiFields.checkTopLevel(file, c);
                if (ApiFields.readsApiFields(texts(c))) {
                    raw.addAll(shownKinds(c, over));
                }
            }
        }
        this.checks = List.copyOf(cs);
        this.kubeKinds = Set.copyOf(kinds);
        this.rawKinds = Set.copyOf(raw);
    }

    /** The texts of a check that hold CEL (an expression, a template). */
    static List<RuleFile.Text> texts(RuleFile.Check c) {
        List<RuleFile.Text> out = new ArrayList<>();
        for (RuleFile.Text t :
                new RuleFile.Text[] {
                    c.when(), c.message(), c.key(), c.severity(), c.line(), c.remediation()
                }) {
            if (t != null) {
                out.add(t);
            }
        }
        return out;
    }

    /**
     * Compiles and type-checks a rule file; an error is an {@link InputException} with the file,
     * line and column of the expression and CEL's message.
     */
    static CelRule compile(RuleFile file) {
        return new CelRule(file, Compilation.direct());
    }

    /**
     * A rule file whose expressions {@code cel} compiles: at once ({@link Compilation#direct}), or
     * with the other files' at {@link Compilation#finish}, before the rule runs.
     */
    static CelRule compile(RuleFile file, Compilation cel) {
        return new CelRule(file, cel);
    }

    /** The rule's metadata, as its file says. */
    public RuleMetadata metadata() {
        return file.metadata();
    }

    /** Where the rule was read from. */
    public String path() {
        return file.path();
    }

    @Override
    public String id() {
        return file.metadata().id();
    }

    @Override
    public SourceKind source() {
        return file.metadata().source();
    }

    @Override
    public Set<String> kubeKinds() {
        return kubeKinds;
    }

    /**
     * The kinds whose objects this rule reads as the API returns them ({@code object.spec}, ...;
     * {@link ApiFields#readsApiFields}): the sources keep those objects whole ({@code
     * ScanRequest.kubeRawKinds}); empty when the rule reads only deja's fields.
     */
    @Override
    public Set<String> kubeRawKinds() {
        return rawKinds;
    }

    /**
     * The kinds of objects whose fields the type-checker does not know (dyn, as Kubernetes' CEL for
     * objects without a schema): what is under the API's fields ({@code object.spec.*}, ...), and
     * the top-level fields of kinds deja has no view of.
     */
    public List<String> notTypeChecked() {
        List<String> out = new ArrayList<>();
        if (!rawKinds.isEmpty()) {
            out.add(
                    "fields under the API's object fields ("
                            + String.join(
                                    ", ",
                                    ApiFields.readIn(
                                            checks.stream()
                                                    .flatMap(c -> texts(c.check()).stream())
                                                    .toList()))
                            + ") of "
                            + String.join(", ", new TreeSet<>(rawKinds)) // a Set's order varies
                            + " are not type-checked (dyn, as Kubernetes' CEL sees objects"
                            + " without a schema): one an object lacks is an error on that object"
                            + " at scan time; test it with has()");
        }
        Set<String> unknown = new TreeSet<>();
        for (Compiled c : checks) {
            for (String k : c.over().kinds()) {
                if (ApiFields.modelOf(k) == null) {
                    unknown.add(k);
                }
            }
        }
        if (!unknown.isEmpty()) {
            out.add(
                    "the fields of "
                            + String.join(", ", unknown)
                            + " are not type-checked: deja has no view of this kind");
        }
        return out;
    }

    /**
     * CEL's compiler, built once: a second thread that asks while it is built (the warm-up thread
     * of {@code deja scan --rules-dir}, and the scan) waits for it rather than building another.
     */
    static CelCompiler compiler() {
        CelCompiler c = compiler;
        if (c != null) {
            return c;
        }
        synchronized (COMPILER_LOCK) {
            return compiler == null ? buildCompiler() : compiler;
        }
    }

    private static CelCompiler buildCompiler() {
        CelCompiler c = compiler;
        if (c == null) {
            c =
                    CelCompilerFactory.standardCelCompilerBuilder()
                            .setOptions(OPTIONS)
                            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
                            .addLibraries(
                                    CelExtensions.strings(),
                                    CelExtensions.math(OPTIONS),
                                    CelExtensions.lists(),
                                    CelExtensions.bindings())
                            .addVar("object", SimpleType.DYN)
                            .addVar("params", MapType.create(SimpleType.STRING, SimpleType.DYN))
                            .addFunctionDeclarations(Functions.declarations())
                            .build();
            compiler = c;
        }
        return c;
    }

    /** CEL's runtime, built once (as {@link #compiler}). */
    static CelRuntime runtime() {
        CelRuntime r = runtime;
        if (r != null) {
            return r;
        }
        synchronized (RUNTIME_LOCK) {
            return runtime == null ? buildRuntime() : runtime;
        }
    }

    private static CelRuntime buildRuntime() {
        CelRuntime r = runtime;
        if (r == null) {
            r =
                    CelRuntimeFactory.standardCelRuntimeBuilder()
                            .setOptions(OPTIONS)
                            .addLibraries(
                                    CelExtensions.strings(),
                                    CelExtensions.math(OPTIONS),
                                    CelExtensions.lists())
                            .addFunctionBindings(Functions.bindings())
                            .build();
            runtime = r;
        }
        return r;
    }

    /**
     * One expression of the file, {@code text} the CEL source, {@code offset} where it starts in
     * the file's text (a template's hole).
     */
    static CelAbstractSyntaxTree checked(
            RuleFile.Text where,
            String text,
            int offset,
            dev.cel.common.types.CelType type,
            String what) {
        CelValidationResult r = compiler().compile(text);
        if (r.hasError()) {
            CelIssue first = r.getErrors().get(0);
            int pos =
                    offset
                            + r.getSource()
                                    .getLocationOffset(first.getSourceLocation())
                                    .orElse(
                                            offsetOf(
                                                    text,
                                                    first.getSourceLocation().getLine(),
                                                    first.getSourceLocation().getColumn()));
            throw new InputException(
                    where.where(pos)
                            + ": "
                            + what
                            + ": "
                            + first.getMessage()
                            + (r.getErrors().size() > 1
                                    ? " (and " + (r.getErrors().size() - 1) + " more)"
                                    : ""));
        }
        try {
            return r.getAst();
        } catch (CelValidationException e) {
            throw new InputException(where.where(offset) + ": " + what + ": " + e.getMessage());
        }
    }

    /**
     * A checked expression of the file as its program runs it ({@link CheapFirst}); an {@link
     * InputException} when {@code check.when} (type bool) is of another type.
     */
    static CelAbstractSyntaxTree runnable(
            RuleFile.Text where,
            int offset,
            dev.cel.common.types.CelType type,
            String what,
            CelAbstractSyntaxTree ast) {
        if (type == SimpleType.BOOL
                && !ast.getResultType().equals(SimpleType.BOOL)
                && !ast.getResultType().equals(SimpleType.DYN)) {
            throw new InputException(
                    where.where(offset)
                            + ": "
                            + what
                            + " must be true or false, not a "
                            + ast.getResultType().name());
        }
        return CheapFirst.apply(ast, LOOKUPS);
    }

    /** The program of a runnable expression of the file ({@link #runnable}). */
    static CelRuntime.Program program(
            RuleFile.Text where, int offset, String what, CelAbstractSyntaxTree runnable) {
        try {
            return runtime().createProgram(runnable);
        } catch (CelEvaluationException e) {
            throw new InputException(where.where(offset) + ": " + what + ": " + e.getMessage());
        }
    }

    /** The offset in {@code text} of CEL's 1-based line and 0-based column. */
    private static int offsetOf(String text, int line, int column) {
        int o = 0;
        for (int l = 1; l < line; l++) {
            int nl = text.indexOf('\n', o);
            if (nl < 0) {
                break;
            }
            o = nl + 1;
        }
        return Math.max(0, o + Math.max(0, column));
    }

    private static final Pattern KIND_ARG = Pattern.compile("objects\\(\\s*['\"]([A-Za-z]+)['\"]");

    /**
     * The kinds the live collector must list for this rule: its own, and what its functions read.
     */
    private static Set<String> kubeKinds(RuleFile f, RuleFile.Check c, Views.Over over) {
        if (f.metadata().source() != SourceKind.KUBERNETES) {
            return Set.of();
        }
        String text = allText(c);
        Set<String> kinds = shownKinds(c, over, text);
        if (text.contains("isLoadBalancer(") || text.contains("loadBalancer(")) {
            // what the load-balancer detector reads (dev.deja.model.kube.LoadBalancers)
            kinds.addAll(List.of("Deployment", "StatefulSet", "DaemonSet", "IngressClass"));
        }
        if (text.contains("pods(")) {
            kinds.add("HorizontalPodAutoscaler");
        }
        return Set.copyOf(kinds);
    }

    /** The texts of a check's expressions, one a line. */
    private static String allText(RuleFile.Check c) {
        StringBuilder all = new StringBuilder();
        for (RuleFile.Text t : texts(c)) {
            all.append(t.value()).append('\n');
        }
        return all.toString();
    }

    /**
     * The kinds of the objects a check's expressions see: its own, and those its functions return
     * ({@code hpaOf}, {@code pdbsOf}, {@code servicesOf}, {@code objects('Kind')}); not what the
     * load-balancer detector reads to decide.
     */
    private static Set<String> shownKinds(RuleFile.Check c, Views.Over over) {
        return shownKinds(c, over, allText(c));
    }

    private static Set<String> shownKinds(RuleFile.Check c, Views.Over over, String text) {
        Set<String> kinds = new TreeSet<>(over.kinds());
        if (text.contains("hpaOf(")) {
            kinds.add("HorizontalPodAutoscaler");
        }
        if (text.contains("pdbsOf(")) {
            kinds.add("PodDisruptionBudget");
        }
        if (text.contains("servicesOf(")) {
            kinds.add("Service");
        }
        Matcher m = KIND_ARG.matcher(text);
        while (m.find()) {
            kinds.add(m.group(1));
        }
        return kinds;
    }

    @Override
    public List<Finding> check(Snapshot snapshot, RuleContext ctx) {
        Judging j = new Judging(snapshot, ctx, limit(ctx), Map.copyOf(params(ctx)));
        Functions.Context previous = Functions.CURRENT.get();
        try {
            for (Compiled c : checks) {
                List<Views.Item> items = c.over().items(snapshot);
                for (int i = 0; i < items.size(); i++) {
                    j.judge(c, items.get(i));
                }
            }
        } finally {
            if (previous == null) {
                Functions.CURRENT.remove();
            } else {
                Functions.CURRENT.set(previous);
            }
        }
        notCheckedRest(ctx, j.withoutRaw, j.moreNotes);
        return checks.get(0).over().scoped(snapshot, dedupe(j.found));
    }

    /**
     * One run of the rule over a snapshot: what it found so far. Judging one object is a method of
     * its own ({@link #judge}), called once per object, so that the JVM compiles it after a few
     * hundred objects; in the loop of {@link #check}, called once per rule, the body would run in
     * the interpreter until the loop itself is compiled (on-stack replacement, after about a
     * hundred thousand turns).
     */
    private final class Judging implements CelVariableResolver {
        final Snapshot snapshot;
        final RuleContext ctx;
        final long limit;
        final Map<String, Object> params;
        final List<Finding> found = new ArrayList<>();
        final Map<String, List<String>> withoutRaw = new LinkedHashMap<>();
        int notes;
        int moreNotes;
        Functions.Context fc;

        /** The object being judged, as the expressions' {@code object}. */
        Object object;

        Judging(Snapshot snapshot, RuleContext ctx, long limit, Map<String, Object> params) {
            this.snapshot = snapshot;
            this.ctx = ctx;
            this.limit = limit;
            this.params = params;
        }

        @Override
        public Optional<Object> find(String name) {
            return switch (name) {
                case "object" -> Optional.of(object);
                case "params" -> Optional.of(params);
                default -> Optional.empty();
            };
        }

        void judge(Compiled c, Views.Item item) {
            if (fc == null || fc.config() != item.config()) {
                fc = new Functions.Context(snapshot, item.config());
                Functions.CURRENT.set(fc);
            }
            object = item.value();
            String why = CelRule.this.withoutRaw(snapshot, object);
            if (why != null) {
                withoutRaw.computeIfAbsent(why, k -> new ArrayList<>()).add(item.label());
                return;
            }
            try {
                Finding f = CelRule.judge(c, item, this, ctx, limit);
                if (f != null) {
                    found.add(f);
                }
            } catch (Failure e) {
                if (notes < MAX_NOTES) {
                    ctx.notChecked(item.label(), e.getMessage());
                    notes++;
                } else {
                    moreNotes++;
                }
            }
        }
    }

    /** The rule's parameters by name, as its expressions see them ({@code params}). */
    private static Map<String, Object> params(RuleContext ctx) {
        Map<String, Object> params = new HashMap<>();
        for (RuleMetadata.Parameter p : ctx.metadata().parameters()) {
            params.put(
                    p.name(),
                    p.integer()
                            ? (Object) (long) ctx.intParameter(p.name())
                            : (Object) ctx.parameter(p.name()));
        }
        return params;
    }

    /**
     * Why an object cannot be checked, when the rule reads its raw form ({@code object.spec}) and
     * deja does not hold it; else null.
     */
    private String withoutRaw(Snapshot snapshot, Object object) {
        if (!rawKinds.isEmpty()
                && object instanceof View v
                && !v.hasRaw()
                && rawKinds.contains(KubeObjects.meta(View.source(v)).kind())) {
            Meta m = KubeObjects.meta(View.source(v));
            return "it reads the object as the API returns it (object.spec, ...),"
                    + " which deja does not hold: "
                    + snapshot.part(KubeRaw.class).orElse(KubeRaw.EMPTY).missing(m);
        }
        return null;
    }

    /** Notes the objects left unchecked for want of their raw form, and the failures not listed. */
    private static void notCheckedRest(
            RuleContext ctx, Map<String, List<String>> withoutRaw, int moreNotes) {
        for (Map.Entry<String, List<String>> e : withoutRaw.entrySet()) {
            List<String> objs = e.getValue();
            ctx.notChecked(
                    objs.get(0) + (objs.size() > 1 ? " and " + (objs.size() - 1) + " more" : ""),
                    e.getKey());
        }
        if (moreNotes > 0) {
            ctx.notChecked(
                    moreNotes + " more object(s)",
                    "its expressions failed on them too (the first " + MAX_NOTES + " are listed)");
        }
    }

    /**
     * One finding per object and message: an object seen several times (a HAProxy frontend on each
     * path through undecided .if blocks) that gives the same finding gives it once, at its worst
     * severity, as the built-in rules do.
     */
    private static List<Finding> dedupe(List<Finding> found) {
        Map<List<Object>, Finding> out = new LinkedHashMap<>();
        for (Finding f : found) {
            List<Object> k = f.sameFindingKey();
            Finding prev = out.get(k);
            if (prev == null || f.severity().compareTo(prev.severity()) > 0) {
                out.put(k, f);
            }
        }
        return List.copyOf(out.values());
    }

    private static long limit(RuleContext ctx) {
        String v = ctx.settings().get(COST_LIMIT_KEY, null);
        if (v == null) {
            return DEFAULT_COST_LIMIT;
        }
        try {
            return Long.parseLong(v.strip());
        } catch (NumberFormatException e) {
            throw new InputException(COST_LIMIT_KEY + ": not a whole number: " + v);
        }
    }

    private static Finding judge(
            Compiled c, Views.Item item, CelVariableResolver vars, RuleContext ctx, long limit) {
        String n = c.check().name();
        if (c.when().rejects(item.value(), vars, limit)) {
            return null;
        }
        Object fires = c.when().eval(item.value(), vars, limit, n + ".when");
        if (!(fires instanceof Boolean b)) {
            throw new Failure(n + ".when gave " + Template.text(fires) + ", not true or false");
        }
        if (!b) {
            return null;
        }
        Location loc = item.location();
        if (c.line() != null) {
            Object ln = c.line().eval(item.value(), vars, limit, n + ".line");
            if (ln instanceof Long l) {
                loc = item.at(Math.toIntExact(l));
            } else if (ln != null) {
                throw new Failure(n + ".line gave " + Template.text(ln) + ", not a line number");
            }
        }
        RuleContext.FindingBuilder f =
                ctx.finding(loc, c.message().render(item.value(), vars, limit))
                        .key(
                                c.key() == null
                                        ? c.check().defaultKey()
                                        : c.key().render(item.value(), vars, limit));
        if (c.severity() != null) {
            Object s = c.severity().eval(item.value(), vars, limit, n + ".severity");
            try {
                f.severity(Severity.parse(String.valueOf(s)));
            } catch (IllegalArgumentException e) {
                throw new Failure(n + ".severity gave '" + s + "': " + e.getMessage());
            }
        }
        if (c.remediation() != null) {
            f.remediation(c.remediation().render(item.value(), vars, limit));
        }
        return f.build();
    }

    /** Evaluates one program on one object, within the cost limit. */
    static Object eval(CelRuntime.Program p, CelVariableResolver vars, long limit, String what) {
        long[] steps = {0};
        try {
            return p.trace(
                    vars,
                    (expr, value) -> {
                        if (++steps[0] > limit) {
                            throw new OverBudget();
                        }
                    });
        } catch (CelEvaluationException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof OverBudget) {
                    throw new Failure(
                            what
                                    + " ran past the cost limit of "
                                    + limit
                                    + " evaluation steps ("
                                    + COST_LIMIT_KEY
                                    + ")");
                }
            }
            throw new Failure(what + ": " + e.getMessage());
        } catch (RuntimeException e) {
            if (e instanceof OverBudget) {
                throw new Failure(
                        what + " ran past the cost limit of " + limit + " evaluation steps");
            }
            throw new Failure(what + ": " + e);
        }
    }

    /** An expression that failed on one object: the object is not checked. */
    static final class Failure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Failure(String message) {
            super(message, null, false, false);
        }
    }

    private static final class OverBudget extends RuntimeException {
        private static final long serialVersionUID = 1L;

        OverBudget() {
            super("cost limit", null, false, false);
        }
    }
}
