package dev.deja.rules.cel;

import dev.deja.engine.CaseInfo;
import dev.deja.engine.Catalog;
import dev.deja.engine.CatalogException;
import dev.deja.engine.Futures;
import dev.deja.engine.InputException;
import dev.deja.engine.Rule;
import dev.deja.engine.RuleMetadata;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The one way in to a team's own rules: compiles their files (already read: this package does no
 * I/O) into {@link Rule}s and a catalog that holds them and their cases next to the built-in ones.
 * Nothing of CEL is loaded until this class is used, so a scan without user rules never loads it.
 */
public final class UserRules {
    private UserRules() {}

    /** A file's path as the user named it, and its text. */
    public record SourceText(String path, String text) {}

    /** The compiled rules (sorted by id) and the catalog extended with them and their cases. */
    public record Loaded(List<Rule> rules, Catalog catalog) {}

    /**
     * Compiles every rule file and reads every case file. A file that does not parse or compile is
     * an {@link InputException} (exit 2) naming its file:line:column and CEL's message.
     */
    public static Loaded load(
            Catalog base, List<SourceText> ruleFiles, List<SourceText> caseFiles) {
        // all the files' expressions compiled together (Compilation: a fraction of the time);
        // when anything fails, again one at a time, for the first error in the files' order
        Compilation batch = Compilation.batched();
        try {
            Loaded l = load(base, ruleFiles, caseFiles, batch);
            if (batch.finish()) {
                return l;
            }
        } catch (InputException e) {
            // reported below, or an earlier file's error is
        }
        return load(base, ruleFiles, caseFiles, Compilation.direct());
    }

    private static Loaded load(
            Catalog base, List<SourceText> ruleFiles, List<SourceText> caseFiles, Compilation cel) {
        List<CaseInfo> cases = new ArrayList<>();
        Map<String, String> origins = new LinkedHashMap<>();
        for (SourceText c : caseFiles) {
            CaseInfo k;
            try {
                k = Catalog.userCase(yamlMap(c), c.path());
            } catch (CatalogException e) {
                throw new InputException(e.getMessage());
            }
            String name = fileName(c.path());
            if (!name.equals(k.id() + ".yaml")) {
                throw new InputException(c.path() + ": file name does not match id " + k.id());
            }
            cases.add(k);
            origins.put(k.id(), c.path());
        }
        List<Rule> rules = new ArrayList<>();
        List<RuleMetadata> metas = new ArrayList<>();
        for (SourceText r : ruleFiles) {
            CelRule rule = CelRule.compile(RuleFile.parse(r.path(), r.text()), cel);
            if (!fileName(r.path()).equals(rule.id() + ".yaml")) {
                throw new InputException(r.path() + ": file name does not match id " + rule.id());
            }
            rules.add(rule);
            metas.add(rule.metadata());
            origins.put(rule.id(), r.path());
        }
        Catalog catalog;
        try {
            catalog = base.withUserRules(metas, cases, origins);
        } catch (CatalogException e) {
            throw new InputException(e.getMessage());
        }
        rules.sort(Comparator.comparing(Rule::id));
        return new Loaded(List.copyOf(rules), catalog);
    }

    /**
     * The rules and their catalog at once, their expressions compiled on a thread of their own
     * while the scan goes on ({@link Started#await} before any of them runs). A file that does not
     * parse, or whose rule is not valid, is an {@link InputException} at once, as from {@link
     * #load}; an expression that does not compile is the same {@link InputException} from {@link
     * Started#await}.
     */
    public static Started start(
            Catalog base, List<SourceText> ruleFiles, List<SourceText> caseFiles) {
        Compilation batch = Compilation.batched();
        Loaded l;
        try {
            l = load(base, ruleFiles, caseFiles, batch);
        } catch (InputException e) {
            // the first error in the files' order, as load() reports it
            return new Started(load(base, ruleFiles, caseFiles, Compilation.direct()), null);
        }
        FutureTask<Void> compile = new FutureTask<>(batch::finishOrThrow, null);
        Thread t = new Thread(compile, "deja-cel-compile");
        t.setDaemon(true);
        t.start();
        return new Started(l, compile);
    }

    /** Rules whose expressions may still be compiling ({@link #start}). */
    public static final class Started {
        private final Loaded loaded;
        private final FutureTask<Void> compile;

        private Started(Loaded loaded, FutureTask<Void> compile) {
            this.loaded = loaded;
            this.compile = compile;
        }

        /** The rules, sorted by id: run them only after {@link #await}. */
        public List<Rule> rules() {
            return loaded.rules();
        }

        /** The catalog with the rules and their cases. */
        public Catalog catalog() {
            return loaded.catalog();
        }

        /**
         * Waits until every expression is compiled; an expression that does not compile is an
         * {@link InputException} (file:line:column and CEL's message), each time this is called.
         */
        public void await() {
            if (compile == null) {
                return;
            }
            try {
                compile.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the rules compiled", e);
            } catch (ExecutionException e) {
                throw Futures.rethrow(e);
            }
        }
    }

    /** One rule file, compiled and type-checked. */
    public static CelRule compile(SourceText file) {
        return CelRule.compile(RuleFile.parse(file.path(), file.text()));
    }

    private static String fileName(String path) {
        int i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
        return i < 0 ? path : path.substring(i + 1);
    }

    private static Map<String, Object> yamlMap(SourceText t) {
        Object o;
        try {
            LoaderOptions opts = new LoaderOptions();
            opts.setAllowDuplicateKeys(false);
            o = new Yaml(new SafeConstructor(opts)).load(t.text());
        } catch (RuntimeException e) {
            String m = String.valueOf(e.getMessage());
            int nl = m.indexOf('\n');
            throw new InputException(
                    t.path() + ": not valid YAML: " + (nl < 0 ? m : m.substring(0, nl)).strip());
        }
        if (!(o instanceof Map<?, ?> m)) {
            throw new InputException(t.path() + ": expected a mapping at the top level");
        }
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(String.valueOf(k), v));
        return out;
    }
}
