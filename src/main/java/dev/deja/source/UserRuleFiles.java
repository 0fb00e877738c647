package dev.deja.source;

import dev.deja.engine.InputException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Reads a team's own rules from disk ({@code deja scan --rules-dir DIR}, {@code deja rules test
 * DIR}): every {@code DIR/*.yaml} is a rule, every {@code DIR/cases/*.yaml} a case, and {@code
 * DIR/<rule-id>/} holds a rule's test inputs (the built-in fixtures' conventions). Only reads: the
 * texts go to {@code dev.deja.rules.cel.UserRules}, which compiles them.
 */
public final class UserRuleFiles {
    private UserRuleFiles() {}

    /** A file as the user's path names it, and its text. */
    public record Text(String path, String text) {}

    /** The rule files and case files of some folders, each folder's in name order. */
    public record Read(List<Text> rules, List<Text> cases) {}

    public static Read read(List<Path> dirs) {
        List<Text> rules = new ArrayList<>();
        List<Text> cases = new ArrayList<>();
        for (Path dir : dirs) {
            if (!Files.isDirectory(dir)) {
                throw new InputException(
                        "--rules-dir "
                                + dir
                                + ": not a folder (a folder of rule files, <id>.yaml)");
            }
            rules.addAll(yamlFiles(dir));
            Path c = dir.resolve("cases");
            if (Files.isDirectory(c)) {
                cases.addAll(yamlFiles(c));
            }
        }
        return new Read(rules, cases);
    }

    /** The test inputs of one rule: {@code DIR/<rule-id>/*} (files and folders), in name order. */
    public static List<Path> testInputs(Path dir, String ruleId) {
        Path t = dir.resolve(ruleId);
        if (!Files.isDirectory(t)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(t)) {
            return s.filter(p -> !p.getFileName().toString().equals("expect.yaml"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new InputException(t + ": cannot list: " + e.getMessage());
        }
    }

    private static List<Text> yamlFiles(Path dir) {
        List<Text> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.sorted().toList()) {
                String n = p.getFileName().toString();
                if (Files.isRegularFile(p) && (n.endsWith(".yaml") || n.endsWith(".yml"))) {
                    out.add(new Text(p.toString(), Files.readString(p, StandardCharsets.UTF_8)));
                }
            }
        } catch (IOException e) {
            throw new InputException(dir + ": cannot read: " + e.getMessage());
        }
        return out;
    }
}
