//! `verdict score`: one game, shown to a person.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Context};
use serde_json::json;
use verdict_rules::analyse::{rule_set_of, Analyser, Analysis, KomiPolicy};
use verdict_rules::dajiefang;
use verdict_rules::game::Game;
use verdict_rules::score::methods::{count_methods, MethodsReport};
use verdict_rules::score::PointState;
use verdict_rules::settle::{ChainFate, Layer, Settlement};
use verdict_rules::sgf::{Reader, SgfGame};
use verdict_rules::{Color, Point};

use crate::cli::ScoreArgs;

pub fn run(args: ScoreArgs) -> anyhow::Result<ExitCode> {
    let bytes = std::fs::read(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let (sgf, count) = nth_game(&bytes, args.game)?;
    let sgf = sgf.with_context(|| {
        format!(
            "{} holds {count} game(s); --game counts from 1 and must be at most {count}",
            args.file.display()
        )
    })?;
    let game = Game::from_sgf(&sgf, &bytes).map_err(|reason| {
        anyhow::anyhow!(
            "game {} of {} cannot be scored: {reason}",
            args.game,
            args.file.display()
        )
    })?;
    let komi = match args.komi {
        Some(k) => KomiPolicy::Fixed(k),
        None => KomiPolicy::Game,
    };
    let mut analyser = Analyser::new()
        .ignore_marks(args.ignore_marks)
        .assume_rules(args.assume.rule_set()?);
    let analysis = analyser.analyse(&game, komi);
    let states = analyser.counter().states();
    let methods = args.methods.then(|| {
        count_methods(
            &analysis.position,
            &analysis.dead,
            &analysis.counts,
            &analysis.terms,
        )
    });
    if let Some(path) = &args.svg {
        write_svg(path, &args.file, args.game, &game, &analysis, states)?;
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&with_methods(
                with_variant(
                    to_json(&game, &analysis, states),
                    &analysis,
                    analyser.dajiefang_replayer().illegal_moves()
                ),
                methods.as_ref()
            ))?
        );
    } else {
        print_human(&args.file, args.game, &game, &analysis, states);
        if let Some(v) = &analysis.variant {
            print_variant(&game, v, analyser.dajiefang_replayer().illegal_moves());
        }
        if let Some(m) = &methods {
            print_methods(m);
        }
        if let Some(facts) = &analysis.settled {
            print_unsure_chains(&game, &facts.settlement);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The final board as a standalone SVG, drawn as the report's examples are.
fn write_svg(
    path: &Path,
    file: &Path,
    n: usize,
    game: &Game<'_>,
    a: &Analysis,
    states: &[PointState],
) -> anyhow::Result<()> {
    use verdict_worker::report::board::{board_svg, BoardView};
    let doubtful: Vec<Point> = match &a.settled {
        Some(facts) => facts
            .settlement
            .doubtful_chains()
            .flat_map(|c| verdict_rules::settle::chain_points(&a.position, c.anchor))
            .collect(),
        None => Vec::new(),
    };
    let info = &game.info;
    let title = format!(
        "{} game {n}: {} (B) vs {} (W), {}, komi {}, result {}, dead stones from {}",
        file.display(),
        info.player(Color::Black).unwrap_or_default(),
        info.player(Color::White).unwrap_or_default(),
        game.size,
        a.komi,
        info.result,
        a.dead_source.as_str()
    );
    let svg = board_svg(
        &BoardView {
            size: game.size,
            states,
            doubtful: &doubtful,
            title,
        },
        "board",
        true,
    );
    std::fs::write(path, svg).with_context(|| format!("cannot write {}", path.display()))
}

/// The `n`th game (from 1) of a collection, and how many games it holds.
fn nth_game(bytes: &[u8], n: usize) -> anyhow::Result<(Option<SgfGame<'_>>, usize)> {
    if n == 0 {
        bail!("--game counts from 1");
    }
    let mut found = None;
    let mut count = 0;
    for game in Reader::new(bytes) {
        count += 1;
        if count == n {
            found = Some(game);
        }
    }
    if count == 0 {
        bail!("no SGF game found: the file is empty, damaged beyond reading, or not SGF");
    }
    Ok((found, count))
}

fn state_char(state: PointState) -> char {
    match state {
        PointState::Stone(Color::Black) => 'X',
        PointState::Stone(Color::White) => 'O',
        PointState::Dead(Color::Black) => 'x',
        PointState::Dead(Color::White) => 'o',
        PointState::Territory(Color::Black) => 'b',
        PointState::Territory(Color::White) => 'w',
        PointState::SekiEye(Color::Black) => 'B',
        PointState::SekiEye(Color::White) => 'W',
        PointState::Fill(Color::Black) => 'f',
        PointState::Fill(Color::White) => 'F',
        PointState::Dame => '.',
        PointState::SekiLiberty => 's',
    }
}

fn board_lines(game: &Game<'_>, states: &[PointState]) -> Vec<String> {
    let size = game.size;
    let w = size.width() as usize;
    let mut lines = Vec::new();
    let letters: String = (0..size.width())
        .map(|x| {
            let p = Point::new(x, 0).expect("on board");
            let gtp = p.to_gtp(size);
            format!(" {}", &gtp[..1])
        })
        .collect();
    lines.push(format!("   {letters}"));
    for y in 0..size.height() as usize {
        let row: String = states[y * w..(y + 1) * w]
            .iter()
            .map(|s| format!(" {}", state_char(*s)))
            .collect();
        lines.push(format!("{:>2} {row}", size.height() as usize - y));
    }
    lines
}

fn print_human(file: &Path, n: usize, game: &Game<'_>, a: &Analysis, states: &[PointState]) {
    let info = &game.info;
    println!(
        "{} game {n}: {} ({}) vs {} ({}), {}, komi {}, handicap {}, rules {}, result {}",
        file.display(),
        info.player(Color::Black).unwrap_or_default(),
        info.rank(Color::Black).unwrap_or_default(),
        info.player(Color::White).unwrap_or_default(),
        info.rank(Color::White).unwrap_or_default(),
        game.size,
        a.komi,
        game.handicap.stones,
        info.rules.as_str(),
        info.result,
    );
    println!();
    for line in board_lines(game, states) {
        println!("  {line}");
    }
    println!();
    println!("  X O stones   x o dead   b w territory   B W seki eyes   F f must fill   s seki liberty   . dame");
    println!(
        "  dead stones: {} ({}); moves {}, stones placed to first stop B {} W {}, captures B {} W {}",
        a.dead.len(),
        a.dead_source.as_str(),
        game.moves.len(),
        a.report.accounting.placed_to_first_stop.black,
        a.report.accounting.placed_to_first_stop.white,
        a.report.accounting.captures.black,
        a.report.accounting.captures.white,
    );
    if let Some(f) = &a.settled {
        let [benson, statics, playouts, reading, result] = f.stones_by_layer;
        println!(
            "  settled without marks: deepest layer {}, confidence {:.2}; stones decided by benson {benson}, static {statics}, playouts {playouts}, reading {reading}, record result {result}; open chains {}",
            f.deepest.as_str(),
            f.confidence,
            f.open_chains,
        );
    }
    let c = &a.counts;
    println!(
        "  area B {} W {}; stones B {} W {}; territory B {} W {}; shared {} (seki liberties {}); basic eyes B {} W {}",
        c.area(Color::Black),
        c.area(Color::White),
        c.stones.black,
        c.stones.white,
        c.territory.black,
        c.territory.white,
        c.shared,
        c.seki_liberties,
        c.basic_eyes.black,
        c.basic_eyes.white,
    );
    println!();
    println!(
        "  {:<14} {:>12} {:>6} {:>9} {:>9}  winner",
        "rule set", "before komi", "komi", "handicap", "margin"
    );
    for v in &a.verdicts {
        println!(
            "  {:<14} {:>12} {:>6} {:>9} {:>9}  {}",
            v.rule_set.id(),
            v.margin_before_komi,
            v.komi,
            v.handicap_bonus,
            v.margin,
            v.winner.as_str()
        );
    }
    println!();
    // Rules assumed for a record that names none are said to be.
    let under = match a.self_check.rule_set() {
        Some(r) if rule_set_of(&game.info.rules).is_none() => format!("{r}, assumed"),
        _ => "its own rules".to_string(),
    };
    match a.self_check.recorded_margin() {
        Some(recorded) => println!(
            "  self-check: {} (recorded {recorded:+}, computed {:+} under {under})",
            a.self_check.status().as_str(),
            a.self_check.computed_margin().unwrap_or(f64::NAN)
        ),
        None => println!("  self-check: unchecked ({:?})", a.self_check),
    }
}

/// What a 大解放 replay found: the moves of each kind, the end, and every
/// illegal move with why.
fn print_variant(game: &Game<'_>, v: &dajiefang::Report, illegal: &[dajiefang::IllegalMove]) {
    let a = &v.accounting;
    println!();
    println!(
        "  大解放{}: placed B {} W {}, placed off B {} W {}, moved B {} W {}, moved off B {} W {}; kos retaken by a moving move {}; {}",
        if game.dajiefang.as_ref().is_some_and(|r| r.inferred) { " (read from MF; no RU says so)" } else { "" },
        a.placed.black, a.placed.white,
        a.placed_off.black, a.placed_off.white,
        a.moved.black, a.moved.white,
        a.moved_off.black, a.moved_off.white,
        a.ko_retakes_by_moving,
        match a.four_xu_end {
            Some(i) => format!("ended by four 虚着 at move {}", i + 1),
            None => "not ended by four 虚着".to_string(),
        }
    );
    if illegal.is_empty() {
        println!("  every move is legal under the variant");
    }
    for m in illegal {
        println!(
            "  move {}: illegal under the variant: {}",
            m.move_index + 1,
            m.why
        );
    }
}

/// Every procedure of the seeds beside its formula, and why any differ.
fn print_methods(m: &MethodsReport) {
    println!();
    println!(
        "  {:<16} {:<10} {:>10} {:>9}  (seeds 000 and 004: counting procedures on this position)",
        "procedure", "", "count", "formula"
    );
    for r in &m.results {
        let count = r.margin.map_or("-".to_string(), |v| format!("{v}"));
        println!(
            "  {:<16} {:<10} {:>10} {:>9}  {}",
            r.method.id(),
            r.method.name(),
            count,
            r.formula,
            if r.agrees() { "" } else { "differs" }
        );
    }
    let findings: Vec<&str> = m.findings.iter().map(|f| f.as_str()).collect();
    println!(
        "  blocks B {} W {}; findings: {}",
        m.blocks.black,
        m.blocks.white,
        if findings.is_empty() {
            "none (every procedure must agree)".to_string()
        } else {
            findings.join(", ")
        }
    );
}

fn with_methods(mut out: serde_json::Value, m: Option<&MethodsReport>) -> serde_json::Value {
    let Some(m) = m else {
        return out;
    };
    out["methods"] = json!({
        "results": m.results.iter().map(|r| json!({
            "id": r.method.id(),
            "name": r.method.name(),
            "rule_set": r.method.rule_set().id(),
            "count": r.margin,
            "formula": r.formula,
            "agrees": r.agrees(),
        })).collect::<Vec<_>>(),
        "findings": m.findings.iter().map(|f| f.as_str()).collect::<Vec<_>>(),
        "blocks": {"B": m.blocks.black, "W": m.blocks.white},
    });
    out
}

fn with_variant(
    mut out: serde_json::Value,
    a: &Analysis,
    illegal: &[dajiefang::IllegalMove],
) -> serde_json::Value {
    let Some(v) = &a.variant else {
        out["variant"] = json!("standard");
        return out;
    };
    let acc = &v.accounting;
    let by = |x: verdict_rules::ByColor<u32>| json!({"B": x.black, "W": x.white});
    out["variant"] = json!("dajiefang");
    out["dajiefang"] = json!({
        "placed": by(acc.placed),
        "placed_off": by(acc.placed_off),
        "moved": by(acc.moved),
        "moved_off": by(acc.moved_off),
        "beside": by(acc.beside),
        "ko_retakes_by_moving": acc.ko_retakes_by_moving,
        "four_xu_end": acc.four_xu_end.map(|i| i + 1),
        "illegal": illegal.iter().map(|m| json!({"move": m.move_index + 1, "why": m.why.to_string()})).collect::<Vec<_>>(),
    });
    out
}

/// The chains a layer above Benson decided, least sure first: where to look
/// when the settler and the players disagree.
fn print_unsure_chains(game: &Game<'_>, s: &Settlement) {
    let mut unsure: Vec<&ChainFate> = s
        .chains
        .iter()
        .filter(|c| c.layer != Layer::Benson)
        .collect();
    if unsure.is_empty() {
        return;
    }
    unsure.sort_by(|a, b| a.confidence.total_cmp(&b.confidence));
    println!();
    println!("  chains not proven by Benson, least sure first:");
    for c in unsure {
        println!(
            "    {:<4} {} {:>3} stone(s): {:<5} by {:<8} confidence {:.2}{}",
            c.anchor.to_gtp(game.size),
            c.color,
            c.stones,
            c.status.as_str(),
            c.layer.as_str(),
            c.confidence,
            if c.is_open() { "  (open)" } else { "" }
        );
    }
}

fn chain_json(game: &Game<'_>, c: &ChainFate) -> serde_json::Value {
    json!({
        "anchor": c.anchor.to_gtp(game.size),
        "color": c.color.to_string(),
        "stones": c.stones,
        "status": c.status.as_str(),
        "layer": c.layer.as_str(),
        "confidence": c.confidence,
    })
}

fn to_json(game: &Game<'_>, a: &Analysis, states: &[PointState]) -> serde_json::Value {
    let verdicts: serde_json::Map<String, serde_json::Value> = a
        .verdicts
        .iter()
        .map(|v| {
            (
                v.rule_set.id().to_string(),
                json!({
                    "margin_before_komi": v.margin_before_komi,
                    "komi": v.komi,
                    "handicap_bonus": v.handicap_bonus,
                    "margin": v.margin,
                    "winner": v.winner.as_str(),
                }),
            )
        })
        .collect();
    let c = &a.counts;
    let by = |x: verdict_rules::ByColor<u32>| json!({"B": x.black, "W": x.white});
    json!({
        "size": game.size.to_string(),
        "komi": a.komi,
        "handicap": game.handicap.stones,
        "rules": game.info.rules.as_str(),
        "result": game.info.result.to_string(),
        "dead_source": a.dead_source.as_str(),
        "dead": a.dead.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
        "settle": a.settled.as_ref().map(|f| json!({
            "deepest_layer": f.deepest.as_str(),
            "confidence": f.confidence,
            "stones_by_layer": verdict_rules::settle::Layer::ALL.iter().zip(f.stones_by_layer).map(|(l, n)| (l.as_str().to_string(), json!(n))).collect::<serde_json::Map<_, _>>(),
            "open_chains": f.open_chains,
            "chains": f.settlement.chains.iter().map(|c| chain_json(game, c)).collect::<Vec<_>>(),
        })),
        "board": board_lines(game, states),
        "counts": {
            "stones": by(c.stones), "territory": by(c.territory), "area": {"B": c.area(Color::Black), "W": c.area(Color::White)},
            "shared": c.shared, "seki_liberties": c.seki_liberties, "seki_eyes": by(c.seki_eyes),
            "basic_eyes": by(c.basic_eyes), "units": by(c.units), "dead": by(c.dead), "fills": by(c.fills),
            "placed_to_first_stop": by(a.report.accounting.placed_to_first_stop),
            "captures": by(a.report.accounting.captures),
        },
        "verdicts": verdicts,
        "self_check": {
            "status": a.self_check.status().as_str(),
            "recorded_margin": a.self_check.recorded_margin(),
            "computed_margin": a.self_check.computed_margin(),
            "rule_set": match a.self_check {
                verdict_rules::analyse::SelfCheck::Agrees { rule_set, .. }
                | verdict_rules::analyse::SelfCheck::Disagrees { rule_set, .. } => Some(rule_set.id()),
                _ => None,
            },
        },
        "rule_sets": a.verdicts.iter().map(|v| v.rule_set.id()).collect::<Vec<_>>(),
    })
}
