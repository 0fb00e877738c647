package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.model.kube.MapTree;
import dev.deja.model.kube.ViewReader;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.nodes.Node;
import tools.jackson.databind.json.JsonMapper;

/**
 * A live scan's parser skips what no view reads (container environment, volumes, status, ...): it
 * must give the same views as the manifest reader, which builds everything, for every rule fixture
 * and the bundled examples. Lines aside (live objects have none).
 */
class LiveParseEquivalenceTest {
    static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void liveParserAndManifestReaderGiveTheSameViews() throws IOException {
        List<Path> files = new ArrayList<>();
        for (Path root :
                List.of(Path.of("src/test/resources/fixtures"), Path.of("examples/kubernetes"))) {
            try (Stream<Path> s = Files.walk(root)) {
                s.filter(p -> p.toString().endsWith(".yaml")).forEach(files::add);
            }
        }
        files.sort(null);
        int compared = 0;
        List<String> different = new ArrayList<>();
        for (Path f : files) {
            String text = Files.readString(f);
            Yaml yaml = new Yaml(new SafeConstructor(new LoaderOptions()));
            List<Node> nodes = new ArrayList<>();
            yaml.composeAll(new StringReader(text)).forEach(nodes::add);
            int i = 0;
            for (Object doc : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(text)) {
                Node node = nodes.get(i++);
                if (!(doc instanceof Map<?, ?> m)
                        || !(m.get("kind") instanceof String kind)
                        || !KubeLiveSource.KINDS.containsKey(kind)) {
                    continue;
                }
                String fromManifest = withoutLines(ViewReader.read(new YamlTree(node), null));
                byte[] page =
                        ("{\"metadata\":{},\"items\":[" + JSON.writeValueAsString(doc) + "]}")
                                .getBytes(StandardCharsets.UTF_8);
                List<Object> live = new ArrayList<>();
                ListPageParser.parse(
                        page, t -> {}, item -> live.add(ViewReader.read(new MapTree(item), null)));
                String fromLive = withoutLines(live.get(0));
                compared++;
                if (!fromManifest.equals(fromLive)) {
                    different.add(
                            f
                                    + " "
                                    + kind
                                    + ":\n  manifest "
                                    + fromManifest
                                    + "\n  live     "
                                    + fromLive);
                }
            }
        }
        assertTrue(compared > 30, "compared " + compared);
        assertEquals(List.of(), different);
    }

    static String withoutLines(Object view) {
        return view.toString().replaceAll("(?i)(line|keyLines)=(\\d+|null|\\{[^}]*\\})", "$1=_");
    }
}
