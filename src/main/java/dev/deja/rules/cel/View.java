package dev.deja.rules.cel;

import dev.deja.model.haproxy.HaproxyConfig;
import dev.deja.model.haproxy.Section;
import dev.deja.model.kube.KubeRaw;
import dev.deja.model.kube.Meta;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.util.AbstractList;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * How CEL sees deja's model: the very objects the Java rules read, as read-only CEL maps and lists,
 * built lazily (a field is converted when an expression reads it, once). A record shows its
 * components and its public derived values ({@code Workload.effectiveReplicas}, {@code
 * Setting.known}, {@code Meta.display}); an unset (null) value is an absent key, so {@code
 * has(object.replicas)} tells. Numbers are CEL ints (long) or doubles, enums their name. A view
 * keeps the object it shows ({@link #source}), so the functions reach the same model (the PDBs of a
 * workload, the backend of a frontend).
 */
final class View extends AbstractMap<String, Object> {
    private static final Object NULL = new Object();
    private static final Set<String> NOT_VALUES = Set.of("toString", "hashCode", "getClass");

    /** The fields of one class of model object, in order; shared by all its views. */
    private static final ClassValue<Shape> SHAPES =
            new ClassValue<>() {
                @Override
                protected Shape computeValue(Class<?> type) {
                    return shapeOf(type);
                }
            };

    private final Object source;
    private final Shape shape;
    private final Object[] extras; // values of the fields past the class's own, or null

    /** A Kubernetes object's metadata (its apiVersion and kind as the API's), or null. */
    private final Meta api;

    /** The Kubernetes object as the API returns it, when kept ({@link KubeRaw}), or null. */
    private final Map<String, Object> raw;

    /**
     * Converted field values, by index, filled when read; racing threads may both convert a field
     * (the same model value gives an equal view), so no lock.
     */
    private final Object[] memo;

    /**
     * What deja's functions found for this object, by function and argument ({@link #computed}), or
     * null.
     */
    private volatile ConcurrentHashMap<String, ConcurrentHashMap<String, Object>> computed;

    private View(Object source, Shape shape, Object[] extras) {
        this(source, shape, extras, null, null);
    }

    private View(Object source, Shape shape, Object[] extras, Meta api, Map<String, Object> raw) {
        this.source = source;
        this.shape = shape;
        this.extras = extras;
        this.api = api;
        this.raw = raw;
        this.memo = new Object[shape.names.length];
    }

    /**
     * A Kubernetes object: its fields as the API returns them ({@code apiVersion}, {@code kind},
     * {@code metadata}, {@code spec}, {@code status}, a ConfigMap's {@code data}, ...; only {@code
     * apiVersion} and {@code kind} when {@code raw} is null) and, beside them, deja's derived
     * fields of the model object ({@code meta}, {@code replicas}, {@code effectiveReplicas}, ...).
     * Where both have a field of one name, the API's is shown, as ValidatingAdmissionPolicy shows
     * it.
     */
    static View kube(Object model, Meta meta, Map<String, Object> raw) {
        return new View(model, SHAPES.get(model.getClass()), null, meta, raw);
    }

    /**
     * The value of a function of this object alone ({@code effective(object, 'timeout server')}),
     * computed once and shared by every rule that asks (fifty rules over the same proxies); {@code
     * function} names the function, {@code argument} its other argument.
     */
    Object computed(String function, String argument, Supplier<Object> value) {
        ConcurrentHashMap<String, ConcurrentHashMap<String, Object>> m = computed;
        if (m == null) {
            synchronized (this) {
                m = computed;
                if (m == null) {
                    m = new ConcurrentHashMap<>();
                    computed = m;
                }
            }
        }
        ConcurrentHashMap<String, Object> byArgument = m.get(function);
        if (byArgument == null) {
            byArgument = m.computeIfAbsent(function, k -> new ConcurrentHashMap<>());
        }
        Object v = byArgument.get(argument);
        if (v == null) {
            Object c = value.get();
            v = c == null ? NULL : c;
            byArgument.putIfAbsent(argument, v);
        }
        return v == NULL ? null : v;
    }

    /** Whether this view shows a Kubernetes object as the API returns it. */
    boolean hasRaw() {
        return raw != null;
    }

    /** The named fields of a class of model object and how to read each one. */
    private static final class Shape {
        final String[] names;
        final Map<String, Integer> index;
        final Function<Object, Object>[] getters;
        final int own; // fields read from the object; past them, the view's extras

        @SuppressWarnings({"unchecked", "rawtypes"})
        Shape(Map<String, Function<Object, Object>> fields, int own) {
            this.names = fields.keySet().toArray(new String[0]);
            this.getters = fields.values().toArray(new Function[0]);
            Map<String, Integer> ix = new HashMap<>();
            for (int i = 0; i < names.length; i++) {
                ix.put(names[i], i);
            }
            this.index = Map.copyOf(ix);
            this.own = own;
        }
    }

    /** The names of the fields a view of this class of model object shows. */
    static List<String> fieldNames(Class<?> type) {
        return List.of(SHAPES.get(type).names);
    }

    /** The model object behind a CEL value (the value itself when it is not a view). */
    static Object source(Object celValue) {
        return celValue instanceof View v ? v.source : celValue;
    }

    /** A view with fields of its own added to the object's ("displayName" of an NLB). */
    static View withExtras(Object o, Map<String, Supplier<Object>> extras) {
        Shape base = SHAPES.get(o.getClass());
        Map<String, Function<Object, Object>> f = new LinkedHashMap<>();
        for (int i = 0; i < base.names.length; i++) {
            f.put(base.names[i], base.getters[i]);
        }
        List<Supplier<Object>> more = new ArrayList<>();
        for (Map.Entry<String, Supplier<Object>> e : extras.entrySet()) {
            f.remove(e.getKey());
        }
        int own = f.size();
        for (Map.Entry<String, Supplier<Object>> e : extras.entrySet()) {
            f.put(e.getKey(), null);
            more.add(e.getValue());
        }
        Object[] values = more.toArray(); // suppliers, called when read
        return new View(o, new Shape(f, own), values);
    }

    /** The CEL value of a model value. */
    static Object of(Object o) {
        if (o instanceof Boolean b) {
            return Boolean.valueOf(b); // reflection boxes a boolean in a new object: one of two
        }
        if (o == null
                || o instanceof String
                || o instanceof Long
                || o instanceof Double
                || o instanceof View) {
            return o;
        }
        if (o instanceof Integer || o instanceof Short || o instanceof Byte) {
            return ((Number) o).longValue();
        }
        if (o instanceof Float f) {
            return f.doubleValue();
        }
        if (o instanceof BigDecimal b) {
            return b.doubleValue();
        }
        if (o instanceof Character c) {
            return c.toString();
        }
        if (o instanceof Enum<?> e) {
            return e.name();
        }
        if (o instanceof List<?> l) {
            return new ListView(l);
        }
        if (o instanceof Map<?, ?> m) {
            return mapOf(m);
        }
        if (o instanceof Record || o instanceof Section || o instanceof HaproxyConfig) {
            return new View(o, SHAPES.get(o.getClass()), null);
        }
        return null; // not part of what rules read (a parse guard, a location): absent
    }

    private static Object mapOf(Map<?, ?> m) {
        boolean plain = true;
        for (Map.Entry<?, ?> e : m.entrySet()) {
            if (!(e.getKey() instanceof String) || !(e.getValue() instanceof String)) {
                plain = false;
                break;
            }
        }
        if (plain) {
            return Collections.unmodifiableMap(m); // labels, annotations, attributes: as they are
        }
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach(
                (k, v) -> {
                    Object c = of(v);
                    if (c != null) {
                        out.put(String.valueOf(k), c);
                    }
                });
        return Collections.unmodifiableMap(out);
    }

    private static Shape shapeOf(Class<?> type) {
        Map<String, Function<Object, Object>> f = new LinkedHashMap<>();
        if (Section.class.isAssignableFrom(type)) {
            f.put("kind", o -> ((Section) o).kind());
            f.put("name", o -> ((Section) o).name());
            f.put("label", o -> ((Section) o).label());
            f.put("from", o -> ((Section) o).from());
            f.put("file", o -> ((Section) o).file());
            f.put("line", o -> ((Section) o).line());
            f.put("where", o -> ((Section) o).where());
            f.put("condition", o -> ((Section) o).condition());
            f.put("directives", o -> ((Section) o).directives());
            f.put("defaults", o -> ((Section) o).defaults());
            f.put("isProxy", o -> ((Section) o).isProxy());
            f.put("acceptsClients", o -> ((Section) o).acceptsClients());
        } else if (HaproxyConfig.class.isAssignableFrom(type)) {
            f.put("name", o -> ((HaproxyConfig) o).name());
            f.put("files", o -> ((HaproxyConfig) o).files());
            f.put("sections", o -> ((HaproxyConfig) o).sections());
            f.put("frontends", o -> ((HaproxyConfig) o).frontends());
            f.put("proxies", o -> ((HaproxyConfig) o).proxies());
            f.put("globals", o -> ((HaproxyConfig) o).globals());
            f.put("directiveCount", o -> ((HaproxyConfig) o).directiveCount());
        } else {
            for (Map.Entry<String, Method> e : accessors(type).entrySet()) {
                Method m = e.getValue();
                f.put(e.getKey(), o -> invoke(m, o));
            }
        }
        return new Shape(f, f.size());
    }

    private static Object invoke(Method m, Object o) {
        try {
            return m.invoke(o);
        } catch (IllegalAccessException e) {
            return null;
        } catch (InvocationTargetException e) {
            Throwable t = e.getCause();
            throw t instanceof RuntimeException r ? r : new IllegalStateException(t);
        }
    }

    /**
     * A record's components, then its public derived values: public methods of the record itself
     * without arguments that return something a rule can read.
     */
    private static Map<String, Method> accessors(Class<?> k) {
        Map<String, Method> out = new LinkedHashMap<>();
        if (k.isRecord()) {
            for (RecordComponent rc : k.getRecordComponents()) {
                Method m = rc.getAccessor();
                m.setAccessible(true);
                out.put(rc.getName(), m);
            }
        }
        List<Method> derived = new ArrayList<>();
        for (Method m : k.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers())
                    && !Modifier.isStatic(m.getModifiers())
                    && m.getParameterCount() == 0
                    && m.getReturnType() != void.class
                    && !m.isSynthetic()
                    && !NOT_VALUES.contains(m.getName())
                    && !out.containsKey(m.getName())) {
                derived.add(m);
            }
        }
        derived.sort((a, b) -> a.getName().compareTo(b.getName()));
        for (Method m : derived) {
            m.setAccessible(true);
            out.put(m.getName(), m);
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private Object value(int i) {
        Object v = memo[i];
        if (v == null) {
            Object raw =
                    i < shape.own
                            ? shape.getters[i].apply(source)
                            : ((Supplier<Object>) extras[i - shape.own]).get();
            Object c = of(raw);
            v = c == null ? NULL : c;
            memo[i] = v;
        }
        return v == NULL ? null : v;
    }

    @Override
    public Object get(Object key) {
        if (api != null) {
            if (raw != null) {
                Object v = raw.get(key);
                if (v != null) {
                    return v;
                }
            }
            if ("apiVersion".equals(key)) {
                return api.apiVersion();
            }
            if ("kind".equals(key)) {
                return api.kind();
            }
        }
        Integer i = key instanceof String ? shape.index.get(key) : null;
        return i == null ? null : value(i);
    }

    @Override
    public boolean containsKey(Object key) {
        return get(key) != null;
    }

    @Override
    public Set<Map.Entry<String, Object>> entrySet() {
        Map<String, Object> all = new LinkedHashMap<>();
        if (api != null) {
            if (raw != null) {
                all.putAll(raw);
            }
            if (api.apiVersion() != null) {
                all.putIfAbsent("apiVersion", api.apiVersion());
            }
            if (api.kind() != null) {
                all.putIfAbsent("kind", api.kind());
            }
        }
        for (int i = 0; i < shape.names.length; i++) {
            if (all.containsKey(shape.names[i])) {
                continue; // the API's field of that name
            }
            Object v = value(i);
            if (v != null) {
                all.put(shape.names[i], v);
            }
        }
        return Collections.unmodifiableMap(all).entrySet();
    }

    @Override
    public int size() {
        return entrySet().size();
    }

    @Override
    public String toString() {
        return String.valueOf(source);
    }

    /** A model list, its elements converted when read. */
    static final class ListView extends AbstractList<Object> {
        private final List<?> list;
        private final Object[] memo;

        ListView(List<?> list) {
            this.list = list;
            this.memo = new Object[list.size()];
        }

        @Override
        public Object get(int i) {
            Object v = memo[i];
            if (v == null) {
                v = of(list.get(i));
                memo[i] = v;
            }
            return v;
        }

        @Override
        public int size() {
            return list.size();
        }

        /** The model list behind it. */
        List<?> source() {
            return list;
        }

        @Override
        public String toString() {
            return list.toString();
        }
    }
}
