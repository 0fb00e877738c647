package dev.deja.model.haproxy;

import dev.deja.engine.InlineSuppression;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * One HAProxy instance's configuration: the files loaded together (in {@code -f} order), their
 * sections in order, notes about what could not be decided (undecided {@code .if} branches,
 * unresolved variables, {@code .warning} messages, keywords outside any section) and the inline
 * {@code # deja:ignore} suppressions found in comments.
 */
public final class HaproxyConfig {
    private final String name;
    private final List<String> files;
    private final List<Section> sections;
    private final List<String> notes;
    private final List<InlineSuppression> suppressions;
    private final int directiveCount;
    private final List<UndecidedBlock> undecided;

    /** The effective view of the frontends, computed once for all rules. */
    private volatile List<Frontends.Frontend> frontendViews;

    private volatile Map<String, Section> backendsByName;

    /** The global sections, in order (read by several views and rules of each scan). */
    private final List<Section> globals;

    public HaproxyConfig(
            String name,
            List<String> files,
            List<Section> sections,
            List<String> notes,
            List<InlineSuppression> suppressions,
            int directiveCount,
            List<UndecidedBlock> undecided) {
        this.undecided = List.copyOf(undecided);
        this.name = name;
        this.files = List.copyOf(files);
        this.sections = List.copyOf(sections);
        List<Section> g = new ArrayList<>();
        for (Section s : this.sections) {
            if (s.kind().equals("global")) {
                g.add(s);
            }
        }
        this.globals = List.copyOf(g);
        this.notes = List.copyOf(notes);
        this.suppressions = List.copyOf(suppressions);
        this.directiveCount = directiveCount;
    }

    /**
     * How findings name the configuration: its file, or the first file of an instance read from
     * several.
     */
    public String name() {
        return name;
    }

    /** The files read, in order. */
    public List<String> files() {
        return files;
    }

    public List<Section> sections() {
        return sections;
    }

    /** What could not be decided or was ignored, one line each with file:line. */
    public List<String> notes() {
        return notes;
    }

    public List<InlineSuppression> suppressions() {
        return suppressions;
    }

    /** Directives and section headers read (lines in active or undecided branches). */
    public int directiveCount() {
        return directiveCount;
    }

    /** The .if blocks whose branches could not be decided, indexed by {@link Guard#block(int)}. */
    public List<UndecidedBlock> undecided() {
        return undecided;
    }

    /**
     * Computed by the first rule that asks; the others (the rules run on several threads) wait for
     * it rather than computing it again at the same time: on the 16,000-frontend benchmark config
     * two threads computing it at once cost a third of the scan.
     */
    List<Frontends.Frontend> frontendViews() {
        List<Frontends.Frontend> v = frontendViews;
        if (v == null) {
            synchronized (this) {
                v = frontendViews;
                if (v == null) {
                    v = Frontends.compute(this);
                    frontendViews = v;
                }
            }
        }
        return v;
    }

    @Override
    public String toString() {
        return "HaproxyConfig[" + name + ", " + sections.size() + " sections]";
    }

    /** The global section (the last one, if several; HAProxy merges them), or empty. */
    public Optional<Section> global() {
        Section g = null;
        for (Section s : sections) {
            if (s.kind().equals("global")) {
                g = s;
            }
        }
        return Optional.ofNullable(g);
    }

    public List<Section> globals() {
        return globals;
    }

    /** The last matching directive across every global section. */
    public Directive globalDirective(Predicate<Directive> p) {
        Directive found = null;
        for (Section s : globals()) {
            Directive d = s.last(p);
            if (d != null) {
                found = d;
            }
        }
        return found;
    }

    /** Frontends and listens, in order. */
    public List<Section> frontends() {
        return sections.stream().filter(Section::acceptsClients).toList();
    }

    public List<Section> proxies() {
        return sections.stream().filter(Section::isProxy).toList();
    }

    /**
     * The backend or listen section of that name (the first one, as HAProxy names must be unique).
     */
    public Optional<Section> backend(String name) {
        Map<String, Section> m = backendsByName;
        if (m == null) {
            synchronized (this) { // once, as frontendViews()
                m = backendsByName;
                if (m == null) {
                    m = new HashMap<>();
                    for (Section s : sections) {
                        if ((s.kind().equals("backend") || s.kind().equals("listen"))
                                && s.name() != null) {
                            m.putIfAbsent(s.name(), s);
                        }
                    }
                    backendsByName = m;
                }
            }
        }
        return Optional.ofNullable(m.get(name));
    }

    /**
     * Where findings about the whole configuration point: the global section, else the first
     * section.
     */
    public Section anchor() {
        return global().orElse(sections.isEmpty() ? null : sections.get(0));
    }
}
