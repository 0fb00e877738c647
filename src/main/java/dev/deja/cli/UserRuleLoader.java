package dev.deja.cli;

import dev.deja.engine.Catalog;
import dev.deja.rules.cel.UserRules;
import dev.deja.source.UserRuleFiles;
import java.nio.file.Path;
import java.util.List;

/**
 * Reads and compiles a team's own rules ({@code --rules-dir}, deja.yaml {@code rulesDirs:}): the
 * only path from the commands to the CEL engine, taken only when rule folders are given, so a scan
 * without them loads no CEL class.
 */
final class UserRuleLoader {
    private UserRuleLoader() {}

    static UserRules.Loaded load(Catalog base, List<Path> dirs) {
        UserRuleFiles.Read read = UserRuleFiles.read(dirs);
        return UserRules.load(base, texts(read.rules()), texts(read.cases()));
    }

    /**
     * The rules of these folders with the catalog that lists them; their expressions compile on a
     * thread of their own until {@link UserRules.Started#await} ({@link UserRules#start}).
     */
    static UserRules.Started start(Catalog base, List<Path> dirs) {
        UserRuleFiles.Read read = UserRuleFiles.read(dirs);
        return UserRules.start(base, texts(read.rules()), texts(read.cases()));
    }

    private static List<UserRules.SourceText> texts(List<UserRuleFiles.Text> files) {
        return files.stream().map(t -> new UserRules.SourceText(t.path(), t.text())).toList();
    }
}
