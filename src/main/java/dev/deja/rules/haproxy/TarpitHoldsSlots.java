package dev.deja.rules.haproxy;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Severity;
import dev.deja.engine.Snapshot;
import dev.deja.haproxy.Directive;
import dev.deja.haproxy.Frontends;
import dev.deja.haproxy.HaproxyConfig;
import dev.deja.haproxy.Times;
import java.util.ArrayList;
import java.util.List;

/**
 * IL-0264: {@code http-request tarpit} holds the connection slot for the whole wait. Slots held by one client =
 * hold time x its request rate ({@code --assume-client-rps}), against the frontend's effective maxconn.
 */
public final class TarpitHoldsSlots extends HaproxyRule {
    public static final String ID = "haproxy-tarpit-holds-slots";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public List<Finding> check(Snapshot snapshot, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        int rps = ctx.settings().getInt("assume-client-rps", 300);
        for (HaproxyConfig c : configs(snapshot)) {
            List<Finding> mine = new ArrayList<>();
            for (Frontends.Frontend f : Frontends.of(c)) {
                if (f.tarpits().isEmpty()) {
                    continue;
                }
                Directive tarpit = f.tarpits().get(0);
                long hold = f.tarpitHoldMillis();
                if (hold == 0) {
                    continue; // both timeouts unset or 0: HAProxy answers at once, nothing is held
                }
                Directive holdFrom = f.tarpit().set() && f.tarpit().millis() != 0 ? f.tarpit().directive()
                        : f.connect().directive();
                List<String> notes = new ArrayList<>(Notes.of(f, tarpit, holdFrom,
                        f.maxconn().frontendDirective(), f.maxconn().globalDirective()));
                String head = f.section().label() + " tarpits requests ('" + tarpit.text() + "' at " + tarpit.where() + "): ";
                if (hold < 0) {
                    mine.add(ctx.finding(Notes.at(f.section(), tarpit), head + "the tarpit hold time is unknown ("
                            + f.tarpitHoldSource() + " cannot be read); every tarpitted request holds a connection slot"
                            + " for that long").severity(Severity.MEDIUM).notes(notes).build());
                    continue;
                }
                long held = (long) Math.ceil(rps * (hold / 1000.0));
                long slots = f.maxconn().effective();
                String holdText = "tarpit holds each request " + Times.format(hold) + " (" + f.tarpitHoldSource() + ")";
                String msg;
                Severity sev;
                if (slots < 0) {
                    msg = head + holdText + "; one client at " + rps + " req/s holds " + held
                            + " slots, against a maxconn that is implicit (no maxconn anywhere: HAProxy derives it"
                            + " from the file-descriptor limit)";
                    sev = Severity.MEDIUM;
                } else {
                    long p = Notes.pct(held, slots);
                    msg = head + holdText + "; one client at " + rps + " req/s holds " + Math.min(held, slots)
                            + (held > slots ? " (wants " + held + ")" : "") + " of " + slots + " slots (" + p
                            + "%; maxconn " + f.maxconn().explain() + ")";
                    sev = held * 4 >= slots ? Severity.HIGH : Severity.MEDIUM;
                }
                if (f.tarpits().size() > 1) {
                    notes.add("other tarpit rules in " + f.section().label() + ": "
                            + f.tarpits().subList(1, f.tarpits().size()).stream().map(Directive::where).toList());
                }
                mine.add(ctx.finding(Notes.at(f.section(), tarpit), msg).severity(sev).notes(notes).build());
            }
            out.addAll(Notes.dedupe(mine, Frontends.of(c)));
        }
        return out;
    }
}
