package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.model.kube.MapTree;
import dev.deja.model.kube.Tree;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JacksonException;

class ListPageParserTest {
    static byte[] json(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void continueTokenArrivesBeforeTheItemsAndSkippedFieldsAreNotBuilt() {
        String page =
                """
                {"kind":"DeploymentList","apiVersion":"apps/v1",
                 "metadata":{"resourceVersion":"42","continue":"tok-1","remainingItemCount":3},
                 "items":[
                  {"metadata":{"name":"a","namespace":"edge","managedFields":[{"manager":"kubectl"}],
                     "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\\"huge\\":1}","keep":"yes"}},
                   "spec":{"replicas":3,"paused":false,"minReadySeconds":null,"template":{"spec":{"containers":[
                     {"name":"c","image":"envoy","args":["--x",null,"--y"]}]}}},
                   "status":{"replicas":3}},
                  {"metadata":{"name":"b"}}
                 ]}""";
        List<String> events = new ArrayList<>();
        List<Map<String, Object>> items = new ArrayList<>();
        ListPageParser.parse(
                json(page),
                t -> events.add("continue " + t),
                i -> {
                    events.add("item");
                    items.add(i);
                });
        assertEquals(List.of("continue tok-1", "item", "item"), events);
        Map<String, Object> a = items.get(0);
        assertFalse(a.containsKey("status"));
        @SuppressWarnings("unchecked")
        Map<String, Object> md = (Map<String, Object>) a.get("metadata");
        assertFalse(md.containsKey("managedFields"));
        assertEquals(Map.of("keep", "yes"), md.get("annotations"));
        Tree t = new MapTree(a).withKind("Deployment", "apps/v1");
        assertEquals("Deployment", t.text("kind"));
        assertEquals("apps/v1", t.text("apiVersion"));
        assertEquals(3, t.path("spec").integer("replicas"));
        assertEquals("false", t.path("spec").text("paused"));
        assertNull(t.path("spec", "minReadySeconds"));
        Tree container = t.path("spec", "template", "spec", "containers").items().get(0);
        assertEquals(List.of("--x", "--y"), container.texts("args"));
        // a status nested below the item (not the item's own) is kept
        ListPageParser.parse(
                json("{\"items\":[{\"spec\":{\"status\":\"x\"}}]}"),
                tok -> {},
                i -> assertEquals(Map.of("status", "x"), i.get("spec")));
    }

    @Test
    void theLastPageHasNoToken() {
        List<String> tokens = new ArrayList<>();
        ListPageParser.parse(
                json("{\"metadata\":{\"continue\":\"\"},\"items\":[]}"), tokens::add, i -> {});
        ListPageParser.parse(json("{\"items\":[],\"metadata\":{}}"), tokens::add, i -> {});
        assertTrue(tokens.isEmpty(), tokens.toString());
        // a token written after the items (not what an API server does) is still found
        ListPageParser.parse(
                json("{\"items\":[],\"metadata\":{\"continue\":\"late\"}}"), tokens::add, i -> {});
        assertEquals(List.of("late"), tokens);
    }

    @Test
    void notAListPageIsRefused() {
        assertThrows(
                JacksonException.class,
                () -> ListPageParser.parse(json("<html>proxy error</html>"), t -> {}, i -> {}));
        assertThrows(
                JacksonException.class,
                () -> ListPageParser.parse(json("{\"items\":[{\"a\":"), t -> {}, i -> {}));
        assertThrows(
                IllegalArgumentException.class,
                () -> ListPageParser.parse(json("[1,2]"), t -> {}, i -> {}));
        // an item that is not an object is an error, not the end of the list
        IllegalArgumentException e =
                assertThrows(
                        IllegalArgumentException.class,
                        () ->
                                ListPageParser.parse(
                                        json(
                                                "{\"items\":[{\"a\":1},null,{\"b\":2}],\"metadata\":{\"continue\":\"t\"}}"),
                                        t -> {},
                                        i -> {}));
        assertEquals("item 1 of the list is not an object: null", e.getMessage());
    }

    @Test
    void statusMessagesAreReadFromErrorBodies() {
        assertEquals(
                "deployments.apps is forbidden",
                ListPageParser.topLevelString(
                        json(
                                "{\"kind\":\"Status\",\"details\":{\"kind\":\"x\"},\"message\":\"deployments.apps is forbidden\"}"),
                        "message"));
        assertNull(ListPageParser.topLevelString(json("not json"), "message"));
    }

    @Test
    void parserMessagesDoNotShowJacksonsRedactedSourceNote() {
        JacksonException e =
                assertThrows(
                        JacksonException.class,
                        () ->
                                ListPageParser.parse(
                                        json("{\"items\":[{\"a\":1}"), t -> {}, i -> {}));
        String m = KubeLiveSource.plain(e.getOriginalMessage());
        assertFalse(m.contains("REDACTED") || m.contains("Source:"), m);
        assertTrue(m.startsWith("Unexpected end-of-input"), m);
    }
}
