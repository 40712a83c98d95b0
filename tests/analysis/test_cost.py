"""The cost model: prices per model, their validation, cached tokens per layer, latency."""

import pytest

from bounded.analysis.cost import (
    EMBEDDED_LATENCY,
    TEMPLATE,
    CostModel,
    Latency,
    Prices,
    cached_by_layer,
    cost_model,
    fit_latency,
    list_prices,
    load_prices,
    money,
    parse_price,
    price_of,
    prices_from,
)
from bounded.core import ConfigError


def test_fresh_cached_and_output_tokens_are_priced_apart():
    prices = Prices(input=2.0, cached_input=0.5, output=8.0)
    # 1,000 prompt tokens of which 600 cached, 100 output
    assert prices.cost(1000, 600, 100) == pytest.approx((400 * 2 + 600 * 0.5 + 100 * 8) / 1e6)


def test_each_model_has_its_prices_and_the_rest_the_default():
    costs = cost_model(["openai:big=10,1,40", "default=1,0.1,2"])
    usage = {
        "openai:big": {"prompt_tokens": 1000, "cached_tokens": 0, "completion_tokens": 0},
        "local:smollm2": {"prompt_tokens": 1000, "cached_tokens": 1000, "completion_tokens": 0},
    }
    assert costs.usage_cost(usage) == pytest.approx((1000 * 10 + 1000 * 0.1) / 1e6)
    assert costs.prices("anything") == Prices(input=1, cached_input=0.1, output=2)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("m=1,2", "MODEL=INPUT,CACHED,OUTPUT"),
        ("=1,2,3", "MODEL=INPUT,CACHED,OUTPUT"),
        ("m=1,,3", "MODEL=INPUT,CACHED,OUTPUT"),
        ("m=1,x,3", "prices must be numbers"),
        ("m=-1,0.1,2", "--price.m.input: Input should be greater than or equal to 0"),
        ("m=1,-0.1,2", "cached_input"),
    ],
)
def test_a_bad_price_is_a_one_line_error(spec, message):
    with pytest.raises(ConfigError) as caught:
        parse_price(spec)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_missing_price_is_a_one_line_error():
    with pytest.raises(ConfigError, match=r"prices\.m\.output: Field required"):
        prices_from({"m": {"input": 1, "cached_input": 0.1}})
    with pytest.raises(ConfigError, match="give input, cached_input and output"):
        prices_from({"m": 3})


def test_prices_come_from_an_experiment_files_table(tmp_path):
    path = tmp_path / "experiment.toml"
    path.write_text(
        '[experiment]\nname = "x"\n\n[prices.default]\ninput = 1\ncached_input = 0.25\n'
        'output = 4\n\n[prices."openai:gpt"]\ninput = 2\ncached_input = 0.5\noutput = 8\n'
    )
    prices = load_prices(path)
    assert prices["openai:gpt"] == Prices(input=2, cached_input=0.5, output=8)
    costs = cost_model(["openai:gpt=3,0.3,9"], [path])  # the command line wins
    assert costs.prices("openai:gpt").input == 3 and costs.default.cached_input == 0.25
    assert costs.sources == [str(path), "--price openai:gpt=3,0.3,9"]
    assert costs.describe() == f"cost in USD at the prices of {path}, --price openai:gpt=3,0.3,9"
    (tmp_path / "bad.toml").write_text("[prices.m]\ninput = -2\ncached_input = 0\noutput = 0\n")
    with pytest.raises(ConfigError, match="input: Input should be greater than or equal to 0"):
        load_prices(tmp_path / "bad.toml")
    (tmp_path / "none.toml").write_text("[experiment]\n")
    with pytest.raises(ConfigError, match="no \\[prices\\] table"):
        load_prices(tmp_path / "none.toml")
    with pytest.raises(ConfigError, match="not found"):
        load_prices(tmp_path / "missing.toml")


def test_a_cached_prefix_is_attributed_to_layers_in_prompt_order():
    segments = [("L1", 500), ("L3", 300), ("combat", 200), ("L2", 600)]
    assert cached_by_layer(segments, 900) == {"L1": 500, "L3": 300, "combat": 100}
    assert cached_by_layer(segments, 0) == {}
    # the chat template's own tokens, which no layer counts, land in a pseudo-layer
    assert cached_by_layer(segments, 1610)[TEMPLATE] == 10


def test_local_models_get_the_embedded_latency_model_unless_given_one():
    costs = CostModel()
    assert costs.latency_of("local:smollm2") == EMBEDDED_LATENCY
    assert costs.latency_of("openai:gpt") is None
    own = Latency(prompt_tokens_per_s=100, output_tokens_per_s=10)
    costs = CostModel(latency={"openai:gpt": own})
    usage = {"openai:gpt": {"prompt_tokens": 500, "cached_tokens": 300, "completion_tokens": 20}}
    assert costs.usage_latency(usage) == pytest.approx(200 / 100 + 20 / 10)


def test_rates_are_fitted_to_timed_calls():
    truth = Latency(prompt_tokens_per_s=250.0, output_tokens_per_s=20.0)
    calls = [(f, c, truth.seconds(f, c)) for f, c in [(900, 30), (200, 60), (1500, 10), (50, 5)]]
    fitted = fit_latency(calls)
    assert fitted.prompt_tokens_per_s == pytest.approx(250.0, rel=1e-3)
    assert fitted.output_tokens_per_s == pytest.approx(20.0, rel=1e-3)
    with pytest.raises(ConfigError, match="at least two timed calls"):
        fit_latency([(100, 10, 1.0)])


def test_scripted_players_cost_nothing_unless_priced():
    from bounded.analysis.cost import CostModel, Prices

    usage = {"scripted:minimal": {"prompt_tokens": 1000, "completion_tokens": 100}}
    assert CostModel().usage_cost(usage) == 0.0
    assert CostModel().cost("none", 10, 0, 10) == 0.0
    priced = CostModel(models={"scripted:minimal": Prices(input=1, cached_input=0, output=0)})
    assert priced.usage_cost(usage) == 0.001


def test_no_model_is_priced_by_a_built_in_default():
    usage = {"openai:fake": {"prompt_tokens": 1000, "cached_tokens": 0, "completion_tokens": 10}}
    costs = CostModel()
    assert costs.prices("openai:fake") is None and costs.usage_cost(usage) is None
    assert costs.unpriced(usage) == ["openai:fake"]
    assert costs.describe().startswith("cost: unpriced, no prices given")
    assert money(None, ["openai:fake"], "USD") == "unpriced (openai:fake)"
    assert money(0.0, ["openai:fake"], "USD") == "unpriced (openai:fake)"
    assert money(0.5, ["openai:fake"], "USD") == "0.5000 USD + unpriced (openai:fake)"
    assert money(0.5, [], "EUR") == "0.5000 EUR"


def test_the_shipped_list_prices_apply_only_when_named():
    # docs/cost.md: Claude Sonnet 4's 2025 list prices, USD per million tokens
    costs = cost_model(files=["list-2025"])
    assert costs.prices("openai:any") == Prices(input=3.0, cached_input=0.3, output=15.0)
    assert costs.cost("openai:m", 1_000_000, 0, 0) == 3.0
    assert costs.describe() == "cost in USD at the prices of list-2025"
    assert list_prices() == Prices(input=3.0, cached_input=0.3, output=15.0)
    with pytest.raises(ConfigError, match=r"prices file not found: list-2024 \(shipped: list-2025"):
        cost_model(files=["list-2024"])


def test_a_kind_prices_its_models_and_the_currency_is_the_files(tmp_path):
    path = tmp_path / "eur.toml"
    path.write_text('currency = "EUR"\n\n[prices.local]\ninput = 1\ncached_input = 0\noutput = 2\n')
    costs = cost_model(files=[path])
    assert costs.prices("local:smollm2.gguf") == Prices(input=1, cached_input=0, output=2)
    assert costs.prices("openai:x") is None and costs.currency == "EUR"
    assert price_of({"openai": costs.models["local"]}, "openai:x") == costs.models["local"]
    with pytest.raises(ConfigError, match="give prices in one currency"):
        cost_model(files=[path, "list-2025"])
