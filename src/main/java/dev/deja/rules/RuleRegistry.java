package dev.deja.rules;

import dev.deja.engine.Catalog;
import dev.deja.engine.Rule;
import dev.deja.engine.RuleMetadata;
import dev.deja.engine.SourceKind;
import java.lang.reflect.Constructor;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * Finds the rule implementations through the catalog, without a hand-kept list: every {@code
 * rules/<id>.yaml} names its class ({@code class:}, or by convention {@link
 * RuleMetadata#conventionalClass}), and only the rules a scan selects are instantiated. Commands
 * that only read the catalog ({@code deja rules}, {@code explain}) load no rule class at all. Rule
 * classes are plain Java with no Fabric8 or AWS SDK types, so loading them loads neither.
 *
 * <p>A missing or wrong class is a build mistake, not an input error: {@link
 * IllegalStateException}, naming the YAML and the file to create. {@code CatalogMetaTest} finds
 * these (and classes without a YAML) before a release.
 */
public final class RuleRegistry {
    private RuleRegistry() {}

    /** Every rule of the packaged catalog, sorted by id. */
    public static List<Rule> all() {
        return load(Catalog.packaged().rules());
    }

    /** The rules of one source. */
    public static List<Rule> of(SourceKind source) {
        return load(Catalog.packaged().rules().stream().filter(m -> m.source() == source).toList());
    }

    /** The implementations of these catalog entries, sorted by id. */
    public static List<Rule> load(Collection<RuleMetadata> rules) {
        List<Rule> out = new ArrayList<>();
        for (RuleMetadata m : rules) {
            out.add(instantiate(m));
        }
        out.sort(Comparator.comparing(Rule::id));
        return List.copyOf(out);
    }

    /**
     * The implementation of one rule: its class, constructed with no arguments, whose id must be
     * the YAML's.
     */
    public static Rule instantiate(RuleMetadata m) {
        String yaml = "rules/" + m.id() + ".yaml";
        Class<?> c;
        try {
            c = Class.forName(m.implementation(), true, RuleRegistry.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException(
                    yaml
                            + ": its class "
                            + m.implementation()
                            + " does not exist: create "
                            + sourceFile(m.implementation())
                            + " (a dev.deja.engine.Rule), or name the class with 'class:'");
        }
        if (!Rule.class.isAssignableFrom(c) || Modifier.isAbstract(c.getModifiers())) {
            throw new IllegalStateException(
                    yaml
                            + ": its class "
                            + m.implementation()
                            + " is not a concrete dev.deja.engine.Rule");
        }
        Rule r;
        try {
            Constructor<?> k = c.getDeclaredConstructor();
            k.setAccessible(true);
            r = (Rule) k.newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(
                    yaml
                            + ": cannot construct "
                            + m.implementation()
                            + " (a rule class needs a constructor without arguments): "
                            + e);
        }
        if (!m.id().equals(r.id())) {
            throw new IllegalStateException(
                    yaml
                            + ": its class "
                            + m.implementation()
                            + " says its id is '"
                            + r.id()
                            + "', not '"
                            + m.id()
                            + "'");
        }
        if (m.source() != r.source()) {
            throw new IllegalStateException(
                    yaml
                            + ": source "
                            + m.source().id()
                            + ", but its class "
                            + m.implementation()
                            + " reads "
                            + r.source().id());
        }
        return r;
    }

    /** Where the source of a class lives in this repository. */
    public static String sourceFile(String className) {
        return "src/main/java/" + className.replace('.', '/') + ".java";
    }
}
