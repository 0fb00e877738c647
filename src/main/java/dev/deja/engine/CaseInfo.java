package dev.deja.engine;

import java.util.List;

/** An incident case from {@code rules/cases/<id>.yaml}. */
public record CaseInfo(
        String id,
        String title,
        String organisation,
        String date,
        List<String> tags,
        String summary,
        List<String> numbers,
        List<TimelineEntry> timeline,
        List<String> failed,
        List<String> followUps,
        List<String> links,
        String libraryUrl) {

    public CaseInfo {
        tags = List.copyOf(tags);
        numbers = List.copyOf(numbers);
        timeline = List.copyOf(timeline);
        failed = List.copyOf(failed);
        followUps = List.copyOf(followUps);
        links = List.copyOf(links);
    }

    /**
     * First sentence of the summary: the one line the text report prints under the case heading.
     */
    public String oneLine() {
        int dot = summary.indexOf(". ");
        return dot < 0 ? summary.strip() : summary.substring(0, dot + 1).strip();
    }

    public record TimelineEntry(String time, String event) {}
}
