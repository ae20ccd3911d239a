"""Label derivation: method names, topic phrases, length, uniqueness."""

from __future__ import annotations

import pytest

from assistant.ingest.labels import MAX_LABEL, derive_label, unique_labels
from assistant.ingest.names import find_method_name, is_name_like
from assistant.types import IngestIssue, Record


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "One global model in federated learning might not serve all clients. In this paper we propose a "
            "novel ``FedMerge'' approach that can create a personalized global model for each client.",
            "FedMerge: Approach that can create a personalized global model",
        ),
        (
            "Singing voice synthesis is a generative task. In this paper, we proposed SU-net for singing "
            "voice synthesis named SUSing. The lyrics are encoded by convolution layers.",
            "SUSing: SU-net for singing voice synthesis",
        ),
        (
            "Zero learning became the state of the art for board games. Using these features, we release "
            "Polygames, our framework for Zero learning, with its library of games and its checkpoints.",
            "Polygames: Framework for Zero learning",
        ),
        (
            "Graph neural networks are hard to explain. To this end, we propose ICExplainer, a novel "
            "explainer that identifies the interactions among nodes.",
            "ICExplainer: Explainer that identifies the interactions among nodes",
        ),
        (
            "Partial domain adaptation transfers knowledge. We propose Geometry-aware Conditional Alignment "
            "(GCA), which aligns the conditional distributions.",
            "GCA: Geometry-aware Conditional Alignment",
        ),
        (
            "We propose a novel deep network structure called \"Network In Network\" (NIN) to enhance model "
            "discriminability for local patches within the receptive field.",
            "NIN: Network In Network",
        ),
        (
            "In this work, we revisit the global weighted average pooling (GWAP) method for localization "
            "and propose the class-agnostic GWAP module and the class-specific GWAP module.",
            "GWAP: Global weighted average pooling",
        ),
        (
            "Chart editing reduces manual effort in visualization design. Typical benchmarks assume access "
            "to complete chart code.",
            "Chart editing",
        ),
        (
            "We study the problem of recovering an underlying 3D shape from a set of images taken from "
            "arbitrary viewpoints.",
            "Recovering an underlying 3D shape",
        ),
        (
            "Can Transformers predict new syllogisms by composing established ones? More generally, what "
            "type of targets can be learned by such models from scratch?",
            "Can Transformers predict new syllogisms by composing established ones?",
        ),
    ],
)
def test_derive_label_examples(text, expected):
    assert derive_label(text) == expected


def test_name_detection_rejects_field_acronyms_and_eponyms():
    assert not is_name_like("LLMs") and not is_name_like("GNN") and not is_name_like("network")
    text = (
        "Meta learning is hard. We propose a novel hierarchical Bayesian model for few-shot learning. "
        "We propose a Normal-Inverse-Wishart model, for which the updates have closed forms."
    )
    assert find_method_name(text).name == ""
    assert derive_label(text) == "Hierarchical Bayesian model for few-shot learning"


def test_labels_are_short_and_non_empty():
    long_text = "Word " * 500
    cjk = "本文提出了一种新的图神经网络池化方法" * 20
    for text in [long_text, "x", "A" * 300, "In this paper, we " + "very " * 100 + "long study.", cjk]:
        label = derive_label(text)
        assert 0 < len(label) <= MAX_LABEL
        assert label != "(empty abstract)"


def test_unique_labels_disambiguates_derived_only():
    text = "Federated learning is a distributed paradigm. Clients train locally and share updates with a server."
    a = Record("a", text, label=derive_label(text), label_derived=True)
    b = Record("b", text + " Extra sentence.", label=derive_label(text), label_derived=True)
    c = Record("c", text + " Third.", label=derive_label(text), label_derived=True)
    t = Record("t", "Other.", title="Federated learning", label="Federated learning")
    issue = IngestIssue("f", 1, "bad")
    out = list(unique_labels([t, a, b, issue, c]))
    labels = [r.label for r in out if isinstance(r, Record)]
    assert labels[0] == "Federated learning"  # titles never change
    assert len({x.casefold() for x in labels}) == 4
    assert out[3] is issue
