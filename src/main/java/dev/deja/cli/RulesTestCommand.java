package dev.deja.cli;

import dev.deja.collect.Collector;
import dev.deja.engine.Catalog;
import dev.deja.engine.Coverage;
import dev.deja.engine.Engine;
import dev.deja.engine.Finding;
import dev.deja.engine.InputException;
import dev.deja.engine.Rule;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Severity;
import dev.deja.engine.Snapshot;
import dev.deja.rules.cel.CelRule;
import dev.deja.rules.cel.UserRules;
import dev.deja.source.ScanRequest;
import dev.deja.source.UserRuleFiles;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code deja rules test DIR}: runs each rule of a folder of one's own rules over its test inputs
 * ({@code DIR/<rule-id>/}, the built-in fixtures' conventions: {@code # expect: <rule-id> <part of
 * the message>} on or above the line that must fire, {@code *_ok.*} inputs that must not fire,
 * {@code expect.yaml} for JSON) and exits 1 naming the rule, the input and the line of each
 * failure. {@code --lint} only compiles and type-checks the rules.
 */
@Command(
        name = "test",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {
            "Test your own rules: each rule of DIR over its inputs in DIR/<rule-id>/ ('# expect: <rule-id>"
                    + " <part of the message>' where it must fire, *_ok.* files where it must not);"
                    + " exit 1 naming the rule, the input and the line that failed, 2 when a rule does not compile."
        })
public final class RulesTestCommand implements Callable<Integer> {
    static final Pattern MARKER = Pattern.compile("#\\s*expect:\\s*(\\S+)[ \\t]*(.*?)\\s*$");

    @Spec CommandSpec spec;

    @Parameters(paramLabel = "DIR", arity = "1..*", description = "Folders of rule files")
    List<Path> dirs = new ArrayList<>();

    @Option(
            names = "--lint",
            description = "Only compile and type-check every rule's expressions (no inputs run)")
    boolean lint;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        UserRules.Loaded loaded = UserRuleLoader.load(Catalog.packaged(), dirs);
        if (lint) {
            for (Rule r : loaded.rules()) {
                if (r instanceof CelRule c) {
                    for (String n : c.notTypeChecked()) {
                        out.println("note: " + r.id() + ": " + n);
                    }
                }
            }
            out.println(loaded.rules().size() + " rule(s) compiled and type-checked");
            out.flush();
            return ExitCodes.OK;
        }
        int passed = 0;
        int failed = 0;
        Engine engine = new Engine(loaded.catalog());
        for (Rule rule : loaded.rules()) {
            Path dir = dirOf(loaded.catalog(), rule);
            List<Path> inputs = UserRuleFiles.testInputs(dir, rule.id());
            boolean fires = false;
            boolean ok = false;
            for (Path input : inputs) {
                boolean isOk = isOk(input);
                ok |= isOk;
                fires |= !isOk;
                List<String> problems = run(engine, rule, input, isOk);
                if (problems.isEmpty()) {
                    passed++;
                    out.println("ok    " + rule.id() + " / " + input.getFileName());
                } else {
                    failed++;
                    out.println("FAIL  " + rule.id() + " / " + input.getFileName());
                    problems.forEach(p -> out.println("      " + p));
                }
            }
            if (!fires || !ok) {
                failed++;
                out.println(
                        "FAIL  "
                                + rule.id()
                                + ": no test input that "
                                + (!fires ? "fires" : "must not fire")
                                + ": create "
                                + dir.resolve(rule.id())
                                + (!fires
                                        ? "/<case>.<ext> with '# expect: " + rule.id() + " ...'"
                                        : "/<case>_ok.<ext>"));
            }
        }
        out.println(passed + " passed, " + failed + " failed");
        out.flush();
        return failed == 0 ? ExitCodes.OK : ExitCodes.FINDINGS;
    }

    private Path dirOf(Catalog catalog, Rule rule) {
        Path file = Path.of(catalog.origin(rule.id()).orElseThrow());
        return file.getParent() == null ? Path.of("") : file.getParent();
    }

    private static boolean isOk(Path f) {
        String n = f.getFileName().toString();
        int dot = n.lastIndexOf('.');
        return (dot < 0 ? n : n.substring(0, dot)).endsWith("_ok");
    }

    /** What one input expects. */
    private record Expect(
            String where,
            String rule,
            Integer line,
            String object,
            Severity severity,
            List<String> messages) {
        boolean matches(Finding f) {
            return f.ruleId().equals(rule)
                    && (line == null || line.equals(f.location().line()))
                    && (object == null || f.location().display().contains(object))
                    && (severity == null || severity == f.severity())
                    && messages.stream().allMatch(m -> f.message().contains(m));
        }
    }

    private List<String> run(Engine engine, Rule rule, Path input, boolean isOk)
            throws IOException {
        List<Expect> expected = isOk ? List.of() : expectations(rule.id(), input);
        ScanRequest.Builder b = ScanRequest.builder();
        b.paths = List.of(input.toString());
        b.processEnv = Map.of();
        b.kubeKinds = rule.kubeKinds();
        b.kubeRawKinds = rule.kubeRawKinds();
        Snapshot snapshot = Collector.collect(b.build());
        ScanResult result = engine.run(snapshot, List.of(rule), Engine.Options.defaults());
        List<String> problems = new ArrayList<>();
        for (Coverage.Entry e : result.coverage().entries()) {
            if (e.scope().startsWith("rule " + rule.id() + " on ")) {
                problems.add(input + ": " + e.scope() + ": " + e.detail());
            } else if (e.status() == Coverage.Status.FAILED
                    || e.status() == Coverage.Status.DENIED) {
                problems.add(input + ": " + e.scope() + " could not be read: " + e.detail());
            }
        }
        List<Finding> left = new ArrayList<>(result.findings());
        for (Expect e : expected) {
            Finding hit = left.stream().filter(e::matches).findFirst().orElse(null);
            if (hit == null) {
                problems.add(
                        e.where()
                                + ": expected a finding of "
                                + e.rule()
                                + (e.line() == null ? "" : " at line " + e.line())
                                + (e.messages().isEmpty()
                                        ? ""
                                        : " with '" + String.join("', '", e.messages()) + "'")
                                + ", but none fired there; its findings here: "
                                + (result.findings().isEmpty()
                                        ? "none"
                                        : String.join(
                                                " | ",
                                                result.findings().stream()
                                                        .map(
                                                                f ->
                                                                        "line "
                                                                                + f.location()
                                                                                        .line()
                                                                                + ": "
                                                                                + f.message())
                                                        .toList())));
            } else {
                left.remove(hit);
            }
        }
        for (Finding f : left) {
            Integer line = f.location().line();
            problems.add(
                    input
                            + (line == null ? "" : ":" + line)
                            + ": unexpected finding of "
                            + f.ruleId()
                            + " ("
                            + f.severity().id()
                            + ") at "
                            + f.location().display()
                            + ": "
                            + f.message());
        }
        return problems;
    }

    private static List<Expect> expectations(String ruleId, Path input) throws IOException {
        List<Expect> out = new ArrayList<>();
        if (Files.isRegularFile(input) && !input.toString().endsWith(".json")) {
            List<String> lines = Files.readAllLines(input);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = MARKER.matcher(lines.get(i));
                if (!m.find()) {
                    continue;
                }
                String before = lines.get(i).substring(0, m.start()).strip();
                int target = before.isEmpty() ? nextContentLine(lines, i + 1) : i + 1;
                String where = input + ":" + (i + 1);
                if (target < 0) {
                    throw new InputException(
                            where + ": '# expect:' with no line after it to expect a finding on");
                }
                String text = m.group(2);
                out.add(
                        new Expect(
                                where,
                                m.group(1),
                                target,
                                null,
                                null,
                                text.isEmpty() ? List.of() : List.of(text)));
            }
        }
        Path expect = input.resolveSibling("expect.yaml");
        if (Files.isRegularFile(expect)) {
            Object doc = ExpectFile.load(Files.readString(expect));
            Object entries =
                    doc instanceof Map<?, ?> m ? m.get(input.getFileName().toString()) : null;
            if (entries instanceof List<?> l) {
                int n = 0;
                for (Object o : l) {
                    n++;
                    if (!(o instanceof Map<?, ?> e)) {
                        throw new InputException(
                                expect
                                        + ": "
                                        + input.getFileName()
                                        + " #"
                                        + n
                                        + ": expected a mapping");
                    }
                    Object msg = e.get("message");
                    List<String> messages =
                            msg == null
                                    ? List.of()
                                    : msg instanceof List<?> ml
                                            ? ml.stream().map(String::valueOf).toList()
                                            : List.of(String.valueOf(msg));
                    int count =
                            e.get("count") == null
                                    ? 1
                                    : Integer.parseInt(String.valueOf(e.get("count")));
                    for (int k = 0; k < count; k++) {
                        out.add(
                                new Expect(
                                        expect + ": " + input.getFileName() + " #" + n,
                                        e.get("rule") == null
                                                ? ruleId
                                                : String.valueOf(e.get("rule")),
                                        e.get("line") == null
                                                ? null
                                                : Integer.valueOf(String.valueOf(e.get("line"))),
                                        e.get("object") == null
                                                ? null
                                                : String.valueOf(e.get("object")),
                                        e.get("severity") == null
                                                ? null
                                                : Severity.parse(String.valueOf(e.get("severity"))),
                                        messages));
                    }
                }
            }
        }
        return out;
    }

    private static int nextContentLine(List<String> lines, int from) {
        for (int j = from; j < lines.size(); j++) {
            String t = lines.get(j).strip();
            if (!t.isEmpty() && !t.startsWith("#")) {
                return j + 1;
            }
        }
        return -1;
    }
}
