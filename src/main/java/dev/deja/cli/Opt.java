package dev.deja.cli;

import java.lang.reflect.Field;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.IGetter;
import picocli.CommandLine.Model.ISetter;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * One option of a command declared with picocli's programmatic model instead of its annotations:
 * {@code Opt.named("--env").label("KEY=VALUE").description("...").map(this, "env")}. The top
 * command and {@code deja scan} are declared this way because their model is built on every scan:
 * reading picocli's annotations made the JDK generate a proxy class per annotation type and parse
 * every field's annotations in the interpreter, about 65 ms of a 50-line scan's ~300 ms
 * (src/bench/haproxy-bench.sh, row "50-line config"). The other commands keep the annotations:
 * their model is built only when they run. Each attribute means what the annotation's attribute of
 * the same name means; the value is bound to the field named (see {@link Binding}), whose value at
 * declaration picocli takes as its initial value (as it takes an annotated field's).
 */
final class Opt {
    private final OptionSpec.Builder b;

    private Opt(String... names) {
        this.b = OptionSpec.builder(names);
    }

    static Opt named(String... names) {
        return new Opt(names);
    }

    /** As {@code paramLabel}. */
    Opt label(String label) {
        b.paramLabel(label);
        return this;
    }

    Opt arity(String arity) {
        b.arity(arity);
        return this;
    }

    /** As {@code split}: a list option's values may also come joined by this regex. */
    Opt split(String regex) {
        b.splitRegex(regex);
        return this;
    }

    /** As {@code splitSynopsisLabel}. */
    Opt splitLabel(String label) {
        b.splitRegexSynopsisLabel(label);
        return this;
    }

    Opt defaultValue(String value) {
        b.defaultValue(value);
        return this;
    }

    /** {@code --no-NAME} too. */
    Opt negatable() {
        b.negatable(true);
        return this;
    }

    Opt description(String... lines) {
        b.description(lines);
        return this;
    }

    /** A flag (no value), bound to the {@code boolean} field {@code field} of {@code owner}. */
    OptionSpec flag(Object owner, String field) {
        return bind(boolean.class, new Class<?>[] {boolean.class}, owner, field);
    }

    /**
     * One value, converted to {@code type} (a primitive type for a primitive field), bound to the
     * field {@code field} of {@code owner}, of that type.
     */
    <T> OptionSpec value(Class<T> type, Object owner, String field) {
        return bind(type, new Class<?>[] {type}, owner, field);
    }

    /** A repeatable option: each value converted to {@code item}; a {@code List} field. */
    <T> OptionSpec list(Class<T> item, Object owner, String field) {
        return bind(List.class, new Class<?>[] {item}, owner, field);
    }

    /** A repeatable {@code KEY=VALUE} option; a {@code Map<String, String>} field. */
    OptionSpec map(Object owner, String field) {
        return bind(Map.class, new Class<?>[] {String.class, String.class}, owner, field);
    }

    private OptionSpec bind(Class<?> type, Class<?>[] aux, Object owner, String field) {
        Binding binding = new Binding(owner, field, type);
        return b.type(type)
                .auxiliaryTypes(aux)
                .getter(binding)
                .setter(binding)
                .initialValue(binding.get())
                .hasInitialValue(true)
                .build();
    }

    /** The positional parameters of a command, as a list of strings. */
    static PositionalParamSpec positionalStrings(
            String label, String arity, String description, Object owner, String field) {
        Binding binding = new Binding(owner, field, List.class);
        return PositionalParamSpec.builder()
                .paramLabel(label)
                .arity(arity)
                .description(description)
                .type(List.class)
                .auxiliaryTypes(String.class)
                .getter(binding)
                .setter(binding)
                .initialValue(binding.get())
                .hasInitialValue(true)
                .build();
    }

    /**
     * {@code -h, --help} and {@code -V, --version}, as the annotation's {@code
     * mixinStandardHelpOptions} gives them (the same names, descriptions and mixin name), without
     * the reflection over picocli's own annotated class that it costs.
     */
    static void standardHelpOptions(CommandSpec spec) {
        CommandSpec mixin = CommandSpec.create().interpolateVariables(false);
        mixin.addOption(
                OptionSpec.builder("-h", "--help")
                        .usageHelp(true)
                        .paramLabel("<helpRequested>")
                        .type(boolean.class)
                        .initialValue(false)
                        .hasInitialValue(true)
                        .description("Show this help message and exit.")
                        .build());
        mixin.addOption(
                OptionSpec.builder("-V", "--version")
                        .versionHelp(true)
                        .paramLabel("<versionRequested>")
                        .type(boolean.class)
                        .initialValue(false)
                        .hasInitialValue(true)
                        .description("Print version information and exit.")
                        .build());
        spec.addMixin("mixinStandardHelpOptions", mixin);
    }

    /**
     * A command: {@code userObject} runs it (a {@link java.util.concurrent.Callable}), with deja's
     * version for {@code --version} and its standard help options to be added last.
     *
     * <p>Built, and its arguments parsed, without picocli's variable interpolation, in it and its
     * mixins: no name, label or default of deja's holds a variable, yet picocli looks for each of
     * its lookups ({@code sys:}, {@code env:}, ...) in every name and label as an option is added,
     * which is about a fifth of the 100-140 ms that building the scan's command line costs a cold
     * JVM. The help turns it on ({@link #interpolating}), for {@code ${DEFAULT-VALUE}}.
     */
    static CommandSpec command(Object userObject, String name, String... description) {
        CommandSpec s = CommandSpec.wrapWithoutInspection(userObject).interpolateVariables(false);
        s.name(name);
        s.versionProvider(new VersionProvider());
        s.usageMessage().description(description);
        return s;
    }

    /**
     * {@code spec} and its subcommands with picocli's interpolation turned on, as the help needs it
     * (its {@code ${DEFAULT-VALUE}}, and the {@code ${picocli.help.name.0:--h}} of the annotated
     * commands' standard options); {@code spec}.
     */
    static CommandSpec interpolating(CommandSpec spec) {
        spec.interpolateVariables(true);
        for (CommandLine sub : spec.subcommands().values()) {
            interpolating(sub.getCommandSpec());
        }
        return spec;
    }

    /** A group of options ({@code declare} adds them) under {@code name}, as a mixin field is. */
    static void mixin(CommandSpec spec, String name, Consumer<CommandSpec> declare) {
        CommandSpec m = CommandSpec.create().interpolateVariables(false);
        declare.accept(m);
        spec.addMixin(name, m);
    }

    /**
     * A field as picocli's getter and setter, found by its name on the owner's class or a
     * superclass, and checked to be of the option's type when the command is built (every test that
     * runs a scan builds it). Reflection rather than a getter and a setter lambda per option: in a
     * cold JVM, linking the 140 lambdas of the scan's options took about a third of building its
     * command line, which every run does; reading a field reflectively links nothing.
     */
    private static final class Binding implements IGetter, ISetter {
        private final Object owner;
        private final Field field;

        Binding(Object owner, String name, Class<?> type) {
            this.owner = owner;
            this.field = field(owner.getClass(), name);
            if (!type.isAssignableFrom(field.getType())) {
                throw new IllegalStateException(
                        owner.getClass().getName()
                                + "."
                                + name
                                + " is a "
                                + field.getType().getName()
                                + ", not a "
                                + type.getName());
            }
            field.setAccessible(true);
        }

        private static Field field(Class<?> c, String name) {
            for (Class<?> k = c; k != null; k = k.getSuperclass()) {
                try {
                    return k.getDeclaredField(name);
                } catch (NoSuchFieldException e) {
                    // a superclass may declare it
                }
            }
            throw new IllegalStateException(c.getName() + " has no field " + name);
        }

        @Override
        @SuppressWarnings({"unchecked", "TypeParameterUnusedInFormals"})
        public <V> V get() {
            try {
                return (V) field.get(owner);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public <V> V set(V value) {
            V old = get();
            try {
                field.set(owner, value);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
            return old;
        }
    }
}
