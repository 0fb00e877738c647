package dev.deja;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Issue 17: mutants of real inputs (the HAProxy configs and Kubernetes manifests of
 * ../shared/corpus, and snapshots deja writes of them and of the AWS example) scanned through the
 * command line: never a stack trace or an internal error, always exit 0, 1, 2 or 3, and an input
 * error is one line. Seeded and reproducible; the budget is a number of mutants and a time limit,
 * whichever comes first (the time limit only shortens the run on a slow machine).
 */
class MutationTest {
    static final int MUTANTS = Integer.getInteger("deja.mutants", 600);
    static final long BUDGET_MS = Long.getLong("deja.mutantBudgetMs", 90_000);
    static final byte[][] NOISE = {
        "\u0000".getBytes(StandardCharsets.UTF_8),
        "\u001b[31m".getBytes(StandardCharsets.UTF_8),
        "\"".getBytes(StandardCharsets.UTF_8),
        "'".getBytes(StandardCharsets.UTF_8),
        "\\".getBytes(StandardCharsets.UTF_8),
        "{".getBytes(StandardCharsets.UTF_8),
        "}".getBytes(StandardCharsets.UTF_8),
        "[".getBytes(StandardCharsets.UTF_8),
        "]".getBytes(StandardCharsets.UTF_8),
        ": ".getBytes(StandardCharsets.UTF_8),
        "- ".getBytes(StandardCharsets.UTF_8),
        "&a ".getBytes(StandardCharsets.UTF_8),
        "*a".getBytes(StandardCharsets.UTF_8),
        "!!binary ".getBytes(StandardCharsets.UTF_8),
        "\t".getBytes(StandardCharsets.UTF_8),
        "${DB_PASSWORD}".getBytes(StandardCharsets.UTF_8),
        ".if".getBytes(StandardCharsets.UTF_8),
        ".endif".getBytes(StandardCharsets.UTF_8),
        "99999999999999999999".getBytes(StandardCharsets.UTF_8),
        "-1".getBytes(StandardCharsets.UTF_8),
        "null".getBytes(StandardCharsets.UTF_8),
        "\r".getBytes(StandardCharsets.UTF_8),
        "\u00e9\u2028".getBytes(StandardCharsets.UTF_8),
        new byte[] {(byte) 0xff, (byte) 0xfe},
        ",".getBytes(StandardCharsets.UTF_8),
        "0".getBytes(StandardCharsets.UTF_8),
        "true".getBytes(StandardCharsets.UTF_8),
        "from".getBytes(StandardCharsets.UTF_8),
    };

    @TempDir Path tmp;

    /**
     * Snapshots only, mostly structural edits of valid JSON: a malformed part is an input error,
     * never a crash.
     */
    @Test
    void mutantsOfSnapshotsNeverCrash() throws IOException {
        Path kubeSnap = tmp.resolve("kube-snapshot.json");
        TestSupport.run(
                "scan",
                "--fail-on",
                "none",
                "--snapshot-out",
                kubeSnap.toString(),
                "examples/kubernetes");
        run(
                List.of(kubeSnap, Path.of("examples/aws/il-0364-snapshot.json")),
                Integer.getInteger("deja.snapshotMutants", 400),
                29);
    }

    @Test
    void mutantsOfRealInputsNeverCrash() throws IOException {
        Path corpus = TestSupport.shared("corpus");
        List<Path> seeds = new ArrayList<>();
        try (Stream<Path> s = Files.walk(corpus)) {
            s.filter(Files::isRegularFile)
                    .filter(p -> p.toString().matches(".*\\.(cfg|yaml|yml)$"))
                    .sorted()
                    .forEach(seeds::add);
        }
        // snapshots as deja writes them: of manifests (Kubernetes inventory) and the AWS example
        Path kubeSnap = tmp.resolve("kube-snapshot.json");
        Path manifests = corpus.resolve("kubernetes");
        if (Files.isDirectory(manifests)) {
            TestSupport.run(
                    "scan",
                    "--fail-on",
                    "none",
                    "--allow-partial",
                    "--snapshot-out",
                    kubeSnap.toString(),
                    manifests.toString());
            if (Files.isRegularFile(kubeSnap)) {
                seeds.add(kubeSnap);
            }
        }
        seeds.add(Path.of("examples/aws/il-0364-snapshot.json"));
        run(seeds, MUTANTS, 17);
    }

    private void run(List<Path> seeds, int mutants, long seedValue) throws IOException {
        Random rnd = new Random(seedValue);
        Map<Integer, Integer> byExit = new TreeMap<>();
        List<String> bad = new ArrayList<>();
        long start = System.nanoTime();
        int tried = 0;
        for (; tried < mutants && (System.nanoTime() - start) / 1_000_000 < BUDGET_MS; tried++) {
            Path seed = seeds.get(rnd.nextInt(seeds.size()));
            byte[] in = Files.readAllBytes(seed);
            String how = "";
            byte[] m = in;
            boolean json = seed.toString().endsWith(".json");
            for (int k = 1 + rnd.nextInt(3); k > 0; k--) {
                int op =
                        json && rnd.nextInt(4) > 0
                                ? 7
                                : rnd.nextInt(7); // snapshots: mostly valid JSON, wrong content
                how += op;
                m = op == 7 ? mutateJson(m, rnd) : mutate(m, op, rnd);
            }
            String name = seed.getFileName().toString();
            Path f = tmp.resolve("m" + tried + name.substring(name.lastIndexOf('.')));
            Files.write(f, m);
            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            "--format",
                            (tried % 3 == 0 ? "text" : tried % 3 == 1 ? "json" : "html"),
                            f.toString());
            byExit.merge(r.code(), 1, Integer::sum);
            boolean ok =
                    r.code() >= 0
                            && r.code() <= 3
                            && !r.err().contains("\tat ")
                            && !r.err().contains("internal error")
                            && !r.err().contains("Exception")
                            && (r.code() != 2 || r.err().strip().lines().count() == 1);
            if (!ok) {
                Path keep = tmp.resolve("bad" + tried + name.substring(name.lastIndexOf('.')));
                Files.write(keep, m);
                bad.add(
                        "mutant "
                                + tried
                                + " of "
                                + seed
                                + " (ops "
                                + how
                                + "): exit "
                                + r.code()
                                + ": "
                                + r.err().lines().limit(3).toList());
                Files.copy(
                        keep,
                        Path.of("target")
                                .resolve("mutant-" + tried + name.substring(name.lastIndexOf('.'))),
                        StandardCopyOption.REPLACE_EXISTING);
            }
            Files.delete(f);
        }
        System.out.println(
                "MutationTest: "
                        + tried
                        + " mutants of "
                        + seeds.size()
                        + " inputs in "
                        + (System.nanoTime() - start) / 1_000_000
                        + " ms; exit codes "
                        + byExit);
        assertTrue(tried >= Math.min(mutants, 50), "too few mutants in the budget: " + tried);
        assertTrue(
                bad.isEmpty(),
                bad.size()
                        + " mutants crashed (copies in target/mutant-*):\n"
                        + String.join("\n", bad));
    }

    static byte[] mutate(byte[] in, int op, Random rnd) {
        List<byte[]> lines = lines(in);
        switch (op) {
            case 0 -> { // delete a line
                if (!lines.isEmpty()) {
                    lines.remove(rnd.nextInt(lines.size()));
                }
            }
            case 1 -> { // duplicate a line
                if (!lines.isEmpty()) {
                    int i = rnd.nextInt(lines.size());
                    lines.add(i, lines.get(i));
                }
            }
            case 2 -> { // swap two lines
                if (lines.size() > 1) {
                    int i = rnd.nextInt(lines.size());
                    int j = rnd.nextInt(lines.size());
                    byte[] t = lines.get(i);
                    lines.set(i, lines.get(j));
                    lines.set(j, t);
                }
            }
            case 3 -> { // truncate
                return Arrays.copyOf(in, in.length == 0 ? 0 : rnd.nextInt(in.length));
            }
            case 4 -> { // insert noise at a random byte
                byte[] n = NOISE[rnd.nextInt(NOISE.length)];
                int at = in.length == 0 ? 0 : rnd.nextInt(in.length);
                byte[] out = new byte[in.length + n.length];
                System.arraycopy(in, 0, out, 0, at);
                System.arraycopy(n, 0, out, at, n.length);
                System.arraycopy(in, at, out, at + n.length, in.length - at);
                return out;
            }
            case 5 -> { // replace a number with an extreme one
                String s = new String(in, StandardCharsets.ISO_8859_1);
                Matcher mt = Pattern.compile("\\d+").matcher(s);
                List<int[]> spans = new ArrayList<>();
                while (mt.find()) {
                    spans.add(new int[] {mt.start(), mt.end()});
                }
                if (!spans.isEmpty()) {
                    int[] sp = spans.get(rnd.nextInt(spans.size()));
                    String[] extremes = {
                        "0", "-1", "2147483648", "99999999999999999999", "1e400", "007"
                    };
                    s =
                            s.substring(0, sp[0])
                                    + extremes[rnd.nextInt(extremes.length)]
                                    + s.substring(sp[1]);
                    return s.getBytes(StandardCharsets.ISO_8859_1);
                }
            }
            default -> { // re-indent a line
                if (!lines.isEmpty()) {
                    int i = rnd.nextInt(lines.size());
                    String l = new String(lines.get(i), StandardCharsets.ISO_8859_1);
                    l = rnd.nextBoolean() ? "  " + l : l.stripLeading();
                    lines.set(i, l.getBytes(StandardCharsets.ISO_8859_1));
                }
            }
        }
        return join(lines);
    }

    static final JsonMapper JSON = JsonMapper.builder().build();

    /**
     * A structural edit of valid JSON: a member removed, nulled, given another type or an extreme
     * number.
     */
    static byte[] mutateJson(byte[] in, Random rnd) {
        JsonNode root;
        try {
            root = JSON.readTree(in);
        } catch (RuntimeException e) {
            return in;
        }
        List<JsonNode> containers = new ArrayList<>();
        ArrayDeque<JsonNode> todo = new ArrayDeque<>(List.of(root));
        while (!todo.isEmpty()) {
            JsonNode n = todo.pop();
            if (n.isContainer() && n.size() > 0) {
                containers.add(n);
                n.values().forEach(todo::push);
            }
        }
        if (containers.isEmpty()) {
            return in;
        }
        JsonNode c = containers.get(rnd.nextInt(containers.size()));
        JsonNodeFactory f = JsonNodeFactory.instance;
        JsonNode[] values = {
            f.nullNode(),
            f.stringNode(""),
            f.stringNode("x\u001b[2J"),
            f.numberNode(-1),
            f.numberNode(2147483648L),
            f.numberNode(new BigDecimal("1e400")),
            f.booleanNode(true),
            f.objectNode(),
            f.arrayNode(),
            f.numberNode(0)
        };
        JsonNode v = values[rnd.nextInt(values.length)];
        if (c instanceof ObjectNode o) {
            List<String> names = new ArrayList<>(o.propertyNames());
            String name = names.get(rnd.nextInt(names.size()));
            if (rnd.nextInt(3) == 0) {
                o.remove(name);
            } else {
                o.set(name, v);
            }
        } else if (c instanceof ArrayNode a) {
            int i = rnd.nextInt(a.size());
            if (rnd.nextInt(3) == 0) {
                a.remove(i);
            } else if (rnd.nextBoolean()) {
                a.set(i, v);
            } else {
                a.add(a.get(i).deepCopy()); // a duplicate entry
            }
        }
        return JSON.writeValueAsBytes(root);
    }

    static List<byte[]> lines(byte[] in) {
        List<byte[]> out = new ArrayList<>();
        int from = 0;
        for (int i = 0; i <= in.length; i++) {
            if (i == in.length || in[i] == '\n') {
                if (i > from || i < in.length) {
                    out.add(Arrays.copyOfRange(in, from, i));
                }
                from = i + 1;
            }
        }
        return out;
    }

    static byte[] join(List<byte[]> lines) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] l : lines) {
            b.writeBytes(l);
            b.write('\n');
        }
        return b.toByteArray();
    }
}
