package smbdirect.api.settings;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a configuration's raw properties through a component property type (an annotation type
 * such as a component's metatype), as Declarative Services would hand it to the component: the
 * property names of the type's methods (DS 1.4, 112.8.2.1), an absent property read as the
 * method's default (or, without one, {@code null}, zero or {@code false}), text converted to the method's type, the first element of a list where one
 * value is read, one value as a one-element array. Unlike Declarative Services, a value that does
 * not fit is refused by name ({@code crc = ture} is no boolean, {@code 44x5} no number) rather than
 * read as {@code false} or {@code 0}. Stateless.
 */
public final class ComponentProperties {

    private ComponentProperties() {
    }

    /**
     * {@code properties} as an instance of the component property type {@code type}; every value is
     * converted at once.
     *
     * @throws SettingRefusedException naming the first property whose value does not fit its type
     */
    public static <T> T read(Class<T> type, Map<String, ?> properties) {
        Map<String, Object> values = new HashMap<>();
        for (Method m : type.getDeclaredMethods()) {
            String key = propertyName(m.getName());
            Object raw = properties == null ? null : properties.get(key);
            Object v = raw == null ? m.getDefaultValue() : convert(key, m.getReturnType(), raw);
            if (v != null) {
                values.put(m.getName(), v);
            }
        }
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            switch (method.getName()) {
                case "annotationType":
                    return type;
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "equals":
                    return proxy == args[0];
                case "toString":
                    return type.getSimpleName() + values;
                default:
                    Object v = values.get(method.getName());
                    if (v == null) {
                        return absent(method.getReturnType());
                    }
                    return v.getClass().isArray() ? copy(v) : v;
            }
        }));
    }

    /** The component property name of a component property type's method (DS 1.4, 112.8.2.1). */
    public static String propertyName(String method) {
        StringBuilder b = new StringBuilder(method.length());
        for (int i = 0; i < method.length(); i++) {
            char c = method.charAt(i);
            if (c == '$') {
                if (method.startsWith("$_$", i)) {
                    b.append('-');
                    i += 2;
                } else if (i + 1 < method.length() && method.charAt(i + 1) == '$') {
                    b.append('$');
                    i++;
                }
            } else if (c == '_') {
                if (i + 1 < method.length() && method.charAt(i + 1) == '_') {
                    b.append('_');
                    i++;
                } else {
                    b.append('.');
                }
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    /** An absent property without a default, as Declarative Services reads it: null, zero or false. */
    private static Object absent(Class<?> t) {
        if (!t.isPrimitive()) {
            return null;
        }
        return t == boolean.class ? (Object) false : t == char.class ? (Object) (char) 0 : convert("", t, "0");
    }

    private static Object copy(Object array) {
        int n = Array.getLength(array);
        Object c = Array.newInstance(array.getClass().getComponentType(), n);
        System.arraycopy(array, 0, c, 0, n);
        return c;
    }

    private static List<Object> elements(Object raw) {
        if (raw.getClass().isArray()) {
            List<Object> l = new ArrayList<>();
            for (int i = 0; i < Array.getLength(raw); i++) {
                l.add(Array.get(raw, i));
            }
            return l;
        }
        if (raw instanceof Collection<?> c) {
            return new ArrayList<>(c);
        }
        return List.of(raw);
    }

    private static Object convert(String key, Class<?> t, Object raw) {
        List<Object> all = elements(raw);
        if (t.isArray()) {
            Class<?> e = t.getComponentType();
            Object out = Array.newInstance(e, all.size());
            for (int i = 0; i < all.size(); i++) {
                Array.set(out, i, one(key, e, all.get(i)));
            }
            return out;
        }
        return all.isEmpty() ? null : one(key, t, all.get(0));
    }

    private static Object one(String key, Class<?> t, Object v) {
        if (v == null) {
            throw new SettingRefusedException(key, "(none)", "no value");
        }
        String s = String.valueOf(v).strip();
        if (t == String.class) {
            return String.valueOf(v);
        }
        if (t == boolean.class) {
            if (v instanceof Boolean b) {
                return b;
            }
            if (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false")) {
                return Boolean.valueOf(s);
            }
            throw new SettingRefusedException(key, v, "not true or false");
        }
        if (t == int.class || t == long.class || t == short.class || t == byte.class) {
            long n;
            if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
                n = ((Number) v).longValue();
            } else if (v instanceof Number) {
                throw new SettingRefusedException(key, v, "not a whole number");
            } else {
                try {
                    n = Long.parseLong(s);
                } catch (NumberFormatException e) {
                    throw new SettingRefusedException(key, v, "not a whole number");
                }
            }
            if (t == int.class && n == (int) n) {
                return (int) n;
            } else if (t == long.class) {
                return n;
            } else if (t == short.class && n == (short) n) {
                return (short) n;
            } else if (t == byte.class && n == (byte) n) {
                return (byte) n;
            }
            throw new SettingRefusedException(key, v, "out of the range of a " + t.getName());
        }
        if (t == double.class || t == float.class) {
            double d;
            if (v instanceof Number num) {
                d = num.doubleValue();
            } else {
                try {
                    d = Double.parseDouble(s);
                } catch (NumberFormatException e) {
                    throw new SettingRefusedException(key, v, "not a number");
                }
            }
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                throw new SettingRefusedException(key, v, "not a number");
            }
            return t == double.class ? (Object) d : (Object) (float) d;
        }
        if (t == char.class) {
            if (s.length() != 1) {
                throw new SettingRefusedException(key, v, "not one character");
            }
            return s.charAt(0);
        }
        if (t.isEnum()) {
            for (Object c : t.getEnumConstants()) {
                if (((Enum<?>) c).name().equals(s)) {
                    return c;
                }
            }
            List<String> names = new ArrayList<>();
            for (Object c : t.getEnumConstants()) {
                names.add(((Enum<?>) c).name());
            }
            throw new SettingRefusedException(key, v, "not one of " + String.join(", ", names));
        }
        throw new SettingRefusedException(key, v, "not convertible to " + t.getSimpleName());
    }
}
