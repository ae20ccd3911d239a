"""A single answer: the model writes from numbered sources and verification keeps what the
abstracts support; with no model (or when nothing the model wrote survives) the answer is composed
from the best evidence sentences, the paper the answer rests on (`prep.main`) cited first.
"""

from __future__ import annotations

from collections.abc import Generator

from ...index.sentences import split_sentences
from ...types import Hit
from ..acronyms import as_shown
from ..answerable import states_asked
from ..compose import extractive_answer, trim
from ..events import Event, Status
from ..evidence import ABSTAIN_SENTENCE, effective_threshold
from ..figures import has_figure
from ..naming import shown_name
from ..prompts import load_prompt
from ..sentrank import default_ranker
from ..state import Draft, Prepared, cite
from ..support import injected_sentences
from .base import Context, check, generate

SOURCE_SENTENCES = 3  # sentences of each abstract shown to the model: its best ones for the question, in order


class SingleWriter:
    def write(self, prep: Prepared, ctx: Context) -> Generator[Event, None, Draft]:
        draft = Draft("answer")
        if ctx.chat is None:
            compose(prep, ctx, draft)
        else:
            sources, dropped, messages = build_prompt(prep, ctx, prep.turns)
            if dropped:
                draft.notes.append(f"{dropped} lower-ranked source(s) left out to fit the model's prompt.")
            yield Status("generating")
            raw = yield from generate(ctx, messages, prep, draft)
            yield Status("verifying")
            v = check(ctx, raw, sources, draft)
            if v.text and ABSTAIN_SENTENCE.lower()[:30] not in raw.lower():
                draft.text, draft.citations = v.text, v.citations
            else:
                draft.notes.append("The model's answer could not be verified against the abstracts; showing the "
                                   "evidence sentences instead.")
                compose(prep, ctx, draft)
        for gap in prep.gaps:  # parts of the question the abstracts do not cover (decide.py: a partial answer)
            draft.text += f"\n\n*{gap}*"
            draft.notes.append(gap)
        draft.related = [h for h in prep.hits if h.paper_id not in {c.paper_id for c in draft.citations}][:3]
        return draft


FIGURE_BONUS = 0.15  # a question asking for a value prefers the sentences that give one
ASKED_BONUS = 0.15  # ... and any question the sentences that state the asked thing ("which corpus": one named)


def compose(prep: Prepared, ctx: Context, draft: Draft) -> None:
    """The answer as cited evidence sentences: the main paper's best (for a value asked for, the ones
    that give a figure; those that state the asked thing first), then another paper's only where it
    answers as well as the main paper (a question about named papers cites those only). A question that
    names no paper ("Which work ...?") gets the paper's name in front."""
    ev, hits, q = prep.evidence, prep.hits, prep.question
    sents = {hi: split_sentences(hits[hi].text) for hi in {b[0] for b in ev.best}}
    topic = tuple(hits[i].title for i in range(len(hits)) if hits[i].paper_id in prep.topic)
    numeric = q.numeric or any(a.numeric for a in q.more)
    asks = [a.asked for a in (q, *q.more) if a.asked]
    best = [(hi, si, sc + (FIGURE_BONUS if numeric and has_figure(sents[hi][si].text) else 0.0)
             + (ASKED_BONUS if any(states_asked(a, sents[hi][si].text, topic) for a in asks) else 0.0))
            for hi, si, sc in ev.best]
    best.sort(key=lambda b: -b[2])
    if prep.topic:
        best = [b for b in best if hits[b[0]].paper_id in prep.topic]
    main_best = max((b[2] for b in best if b[0] == prep.main), default=0.0)
    best = [b for b in best if b[0] == prep.main or b[2] >= main_best]
    threshold = effective_threshold(ev, ctx.settings.abstain_threshold)
    ranked = _ranked_main(prep, ctx, topic) if any(b[0] == prep.main for b in best) else None
    if ranked is None:
        picks = asked_first(extractive_answer(best, hits, threshold, main=prep.main), best)
    else:  # the main paper's sentences as the ranker orders them; other papers' as before, in the room left
        others = extractive_answer([b for b in best if b[0] != prep.main], hits, threshold, limit=3 - len(ranked),
                                   main=-1)
        picks = [(prep.main, si) for si in ranked[:1] + sorted(ranked[1:])] + others  # the answering sentence first
    markers: dict[int, int] = {}
    chosen: dict[int, list[int]] = {}
    parts = []
    rw = ctx.rw()
    named = [(hi, si, split_sentences(hits[hi].text)[si].text, shown_name(prep.names, hits[hi])) for hi, si in picks]
    texts = as_shown(rw, [(source, name, hits[hi].text) for hi, _, source, name in named])
    for (hi, si, _, name), sentence in zip(named, texts):
        if not sentence:
            continue  # a pointer to code or a project page: no claim
        sentence = sentence.rstrip(".")
        n = markers.setdefault(hi, len(markers) + 1)
        chosen.setdefault(hi, []).append(si)
        if not parts and name and name.lower() not in sentence.lower():
            sentence = f"**{name}**: {sentence}"  # the answer names the paper it rests on
        parts.append(f"{sentence} [{n}].")
    draft.text = " ".join(parts)  # never empty: decide() abstains when the main paper has no sentence to show
    draft.citations = [cite(n, hits[hi], chosen[hi]) for hi, n in markers.items()]


def asked_first(picks: list[tuple[int, int]], best: list[tuple[int, int, float]]) -> list[tuple[int, int]]:
    """The first paper's picked sentence that answers best (highest score) first, the others in their order.

    >>> asked_first([(0, 1), (0, 4)], [(0, 4, .9), (0, 1, .5)])
    [(0, 4), (0, 1)]
    """
    score = {(hi, si): sc for hi, si, sc in best}
    if not picks:
        return picks
    top = max((p for p in picks if p[0] == picks[0][0]), key=lambda p: score.get(p, 0.0))
    return [top] + [p for p in picks if p != top]


def _ranked_main(prep: Prepared, ctx: Context, topic: tuple[str, ...]) -> list[int] | None:
    """The main paper's sentences to show, chosen by the learned sentence ranker (None without one)."""
    ranker = default_ranker()
    if ranker is None:
        return None
    hit = prep.hits[prep.main]
    texts = [s.text for s in split_sentences(hit.text)]
    return ranker.pick(prep.question, texts, ctx.scorer, name=shown_name(prep.names, hit), topic=topic,
                       skip=frozenset(injected_sentences(texts))) or None


def build_prompt(prep: Prepared, ctx: Context, turns, template: str = "answer"):
    """Numbered, delimited sources + history, fitted to `answer.prompt_tokens` and the model's window.

    Each part is counted once; older turns go first, then the lowest-ranked sources (one always
    stays). Prefill time grows with the prompt (~430 tokens/s for the bundled model on two cores),
    so the budget is what keeps the first token quick.
    """
    s, chat = ctx.settings, ctx.chat
    order = [prep.main] + [i for i in range(len(prep.hits)) if i != prep.main]
    hits = [prep.hits[i] for i in order][: s.sources]
    best_by_hit: dict[str, list[int]] = {}
    for hi, si, _ in prep.evidence.best if prep.evidence else []:
        best_by_hit.setdefault(prep.hits[hi].paper_id, []).append(si)
    system = load_prompt("system").render()
    history = [f"Earlier question: {t.question}\nEarlier answer: {trim(t.answer, 60)}" for t in turns]
    blocks = [source_block(n, h, best_by_hit.get(h.paper_id, [])) for n, h in enumerate(hits, start=1)]

    def render(k: int, first_turn: int) -> str:
        block, kept = "\n".join(blocks[:k]), history[first_turn:]
        hist = ("\nConversation so far:\n" + "\n".join(kept) + "\n") if kept else ""
        values = {"sources": block, "question": prep.question.standalone}
        return load_prompt(template).render(**({**values, "history": hist} if template == "answer" else values))

    budget = min(min(chat.context_tokens, s.context_tokens) - s.max_new_tokens - 16, s.prompt_tokens)
    fixed = chat.count_tokens(system) + chat.count_tokens(render(0, len(history))) + 24  # chat template too
    block_n = [chat.count_tokens(b) + 1 for b in blocks]
    turn_n = [chat.count_tokens(t) + 1 for t in history]

    def size(k: int, first_turn: int) -> int:
        kept = sum(turn_n[first_turn:]) + (8 if first_turn < len(history) else 0)  # + the heading
        return fixed + sum(block_n[:k]) + kept

    k, first_turn = len(blocks), 0
    while size(k, first_turn) > budget:
        if first_turn < len(history):
            first_turn += 1
        elif k > 1:
            k -= 1
        else:
            break
    return hits[:k], len(hits) - k, [{"role": "system", "content": system},
                                     {"role": "user", "content": render(k, first_turn)}]


def source_block(n: int, h: Hit, best: list[int]) -> str:
    """One numbered source, delimited and marked untrusted; the abstract's best sentences in order."""
    sents = split_sentences(h.text)
    keep = sorted(set(best[:SOURCE_SENTENCES])) if best else list(range(min(len(sents), SOURCE_SENTENCES)))
    text = " ".join(sents[i].text for i in keep if i < len(sents))
    text = text.replace("<source", "&lt;source").replace("</source", "&lt;/source")
    title = h.title.replace('"', "'").replace("<", "(").replace(">", ")")  # a label cannot close the delimiter
    return f'<source id="{n}" title="{title}">\n{text}\n</source>'
