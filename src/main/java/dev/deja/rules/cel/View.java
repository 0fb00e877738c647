package dev.deja.rules.cel;

import dev.deja.model.haproxy.HaproxyConfig;
import dev.deja.model.haproxy.Section;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.util.AbstractList;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
    private static final Map<Class<?>, Map<String, Method>> ACCESSORS = new ConcurrentHashMap<>();
    private static final Set<String> NOT_VALUES = Set.of("toString", "hashCode", "getClass");

    private final Object source;
    private final Map<String, Supplier<Object>> fields;
    private final Map<String, Object> memo = new ConcurrentHashMap<>();

    private View(Object source, Map<String, Supplier<Object>> fields) {
        this.source = source;
        this.fields = fields;
    }

    /** The model object behind a CEL value (the value itself when it is not a view). */
    static Object source(Object celValue) {
        return celValue instanceof View v ? v.source : celValue;
    }

    /** A view with fields of its own added to the object's ("displayName" of an NLB). */
    static View withExtras(Object o, Map<String, Supplier<Object>> extras) {
        Map<String, Supplier<Object>> f = new LinkedHashMap<>(fieldsOf(o));
        f.putAll(extras);
        return new View(o, f);
    }

    /** The CEL value of a model value. */
    static Object of(Object o) {
        if (o == null
                || o instanceof String
                || o instanceof Boolean
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
            return new View(o, fieldsOf(o));
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

    private static Map<String, Supplier<Object>> fieldsOf(Object o) {
        Map<String, Supplier<Object>> f = new LinkedHashMap<>();
        if (o instanceof Section s) {
            f.put("kind", s::kind);
            f.put("name", s::name);
            f.put("label", s::label);
            f.put("from", s::from);
            f.put("file", s::file);
            f.put("line", s::line);
            f.put("where", s::where);
            f.put("condition", s::condition);
            f.put("directives", s::directives);
            f.put("defaults", s::defaults);
            f.put("isProxy", s::isProxy);
            f.put("acceptsClients", s::acceptsClients);
            return f;
        }
        if (o instanceof HaproxyConfig c) {
            f.put("name", c::name);
            f.put("files", c::files);
            f.put("sections", c::sections);
            f.put("frontends", c::frontends);
            f.put("proxies", c::proxies);
            f.put("globals", c::globals);
            f.put("directiveCount", c::directiveCount);
            return f;
        }
        for (Map.Entry<String, Method> e : accessors(o.getClass()).entrySet()) {
            Method m = e.getValue();
            f.put(e.getKey(), () -> invoke(m, o));
        }
        return f;
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
    private static Map<String, Method> accessors(Class<?> c) {
        return ACCESSORS.computeIfAbsent(
                c,
                k -> {
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
                });
    }

    private Object value(String key) {
        Object v = memo.get(key);
        if (v == null) {
            Supplier<Object> s = fields.get(key);
            Object c = s == null ? null : of(s.get());
            v = c == null ? NULL : c;
            memo.put(key, v);
        }
        return v == NULL ? null : v;
    }

    @Override
    public Object get(Object key) {
        return key instanceof String k ? value(k) : null;
    }

    @Override
    public boolean containsKey(Object key) {
        return key instanceof String k && fields.containsKey(k) && value(k) != null;
    }

    @Override
    public Set<Map.Entry<String, Object>> entrySet() {
        Map<String, Object> all = new LinkedHashMap<>();
        for (String k : fields.keySet()) {
            Object v = value(k);
            if (v != null) {
                all.put(k, v);
            }
        }
        return Collections.unmodifiableMap(all).entrySet();
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
