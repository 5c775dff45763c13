//! The seeds' own counting procedures, each carried out on the final
//! position as the seed describes it, beside the formula of its rule set.
//!
//! Seed 000 (article 22) gives four ways to count 计枰点, each in both
//! editions: 子空合计 (stones and empty points together), 等空比子 (make the
//! empty points equal, compare stones), 等子比空 (fill the captured stones
//! back, balance the moves, compare empty points) and 填满计点 (fill
//! everything from bowls of 180 stones a side, read what is left). Seed 004
//! gives five for 计活子: 数路法 = 停子比路 (equal stones, compare 路),
//! 填满数子 (fill keeping the basic eyes from bowls of 181, read the bowls),
//! 停路比子 (equal 路, compare stones), 子路合计 (stones and 路 together) and
//! 停虚比子 (还棋头: one stone back per extra block). The seeds claim each
//! family gives one result; [`count_methods`] tests that claim game by game.
//!
//! Each procedure works on its own copy of the board: it removes the dead
//! stones, fills points, lifts or swaps stones, and then counts what it
//! sees by flood fill. Nothing is taken from the formula's [`Counts`]
//! except to say why a result differs ([`Findings`]): the procedures know
//! *blocks* (棋块: stones of one colour joined along the lines or through an
//! empty point of their own that touches both), not living units, and count
//! two basic eyes per block where seed 004 says so; they know nothing of
//! seki liberties nor of the points an owner must still fill.
//!
//! Choices the seeds leave open, made once here:
//! * Boards of any size: the bowls hold `points / 2` stones a side for
//!   填满计点 (180 on 19x19) and `(points + 1) / 2` for 填满数子 (181).
//! * 平衡手数 (seed 000 article 23) is done with the edition's 负着 where the
//!   procedure compares stones or empty points (等空比子, 等子比空, 数路法):
//!   the side that placed `n` more stones up to the first stop takes `n` of
//!   its stones off, at the boundary (A类, the point becomes shared) or from
//!   inside its own area (B类, the point becomes its own). 子空合计 and
//!   填满计点 have their A editions the way seed 000 part 5 states them: the
//!   side that placed `n` more pays `n`.
//! * Seed 004 defines no editions for 计活子; only 数路法 balances moves, so
//!   only it is given in both; the others are B (no payment) procedures.

use super::{Counts, Position, RuleSet, Terms};
use crate::board::flood;
use crate::{BoardSize, ByColor, Color, Point};

/// A rule set's edition: A (唐宋, extra stones paid) or B (明清).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Edition {
    A,
    B,
}

/// One counting procedure of the seeds.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// 计枰点 子空合计: Black's stones, empty points and half the shared
    /// points; White's is the rest of the board.
    ZiKong(Edition),
    /// 计枰点 等空比子: after balancing moves, the side with more empty
    /// points fills the difference; compare stones.
    DengKong(Edition),
    /// 计枰点 等子比空 (计目法): captured and dead stones filled back into
    /// their owners' own areas, moves balanced; compare empty points.
    DengZi(Edition),
    /// 计枰点 填满计点: shared points filled half each, then each area, from
    /// bowls of `points / 2` stones; a full area is its stones, an area
    /// left open when the bowl ran out is the bowl plus what is left open.
    TianManJiDian(Edition),
    /// 计活子 数路法 (停子比路): filled back keeping the basic eyes, moves
    /// balanced; 路 = own empty points less two per block.
    ShuLu(Edition),
    /// 计活子 填满数子: own areas filled keeping each block's basic eyes,
    /// from bowls of `(points + 1) / 2`; compare what is left in the bowls.
    TianManShuZi,
    /// 计活子 停路比子: the side with more 路 fills the difference; compare
    /// stones on the board.
    TingLu,
    /// 计活子 子路合计: area (Chinese count of one side) less the basic eye
    /// points left empty less half the shared points.
    ZiLu,
    /// 计活子 停虚比子 (还棋头): the side with more blocks swaps one
    /// boundary stone to the other colour per extra block; compare areas.
    TingXu,
}

impl Method {
    pub const ALL: [Method; 14] = [
        Method::ZiKong(Edition::A),
        Method::ZiKong(Edition::B),
        Method::DengKong(Edition::A),
        Method::DengKong(Edition::B),
        Method::DengZi(Edition::A),
        Method::DengZi(Edition::B),
        Method::TianManJiDian(Edition::A),
        Method::TianManJiDian(Edition::B),
        Method::ShuLu(Edition::A),
        Method::ShuLu(Edition::B),
        Method::TianManShuZi,
        Method::TingLu,
        Method::ZiLu,
        Method::TingXu,
    ];

    /// The rule set whose formula the procedure should reproduce.
    pub const fn rule_set(self) -> RuleSet {
        use Edition::{A, B};
        match self {
            Method::ZiKong(A)
            | Method::DengKong(A)
            | Method::DengZi(A)
            | Method::TianManJiDian(A) => RuleSet::JpdA,
            Method::ZiKong(B)
            | Method::DengKong(B)
            | Method::DengZi(B)
            | Method::TianManJiDian(B) => RuleSet::JpdB,
            Method::ShuLu(A) => RuleSet::JhzA,
            Method::ShuLu(B)
            | Method::TianManShuZi
            | Method::TingLu
            | Method::ZiLu
            | Method::TingXu => RuleSet::JhzB,
        }
    }

    /// Stable id, `<rule set>_<method>` (a public contract: the
    /// `methods_differ` column, `verdict score --methods --json`).
    pub const fn id(self) -> &'static str {
        use Edition::{A, B};
        match self {
            Method::ZiKong(A) => "jpd_a_zikong",
            Method::ZiKong(B) => "jpd_b_zikong",
            Method::DengKong(A) => "jpd_a_dengkong",
            Method::DengKong(B) => "jpd_b_dengkong",
            Method::DengZi(A) => "jpd_a_dengzi",
            Method::DengZi(B) => "jpd_b_dengzi",
            Method::TianManJiDian(A) => "jpd_a_tianman",
            Method::TianManJiDian(B) => "jpd_b_tianman",
            Method::ShuLu(A) => "jhz_a_shulu",
            Method::ShuLu(B) => "jhz_b_shulu",
            Method::TianManShuZi => "jhz_b_tianman",
            Method::TingLu => "jhz_b_tinglu",
            Method::ZiLu => "jhz_b_zilu",
            Method::TingXu => "jhz_b_tingxu",
        }
    }

    /// The seed's name of the procedure.
    pub const fn name(self) -> &'static str {
        match self {
            Method::ZiKong(_) => "子空合计",
            Method::DengKong(_) => "等空比子",
            Method::DengZi(_) => "等子比空",
            Method::TianManJiDian(_) => "填满计点",
            Method::ShuLu(_) => "数路法",
            Method::TianManShuZi => "填满数子",
            Method::TingLu => "停路比子",
            Method::ZiLu => "子路合计",
            Method::TingXu => "停虚比子",
        }
    }
}

/// Why a procedure's count can differ from its formula's: the game's
/// features that the seeds' equivalence does not cover. One bit each.
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash)]
pub struct Findings(u16);

/// One kind of [`Findings`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Finding {
    /// Seki liberties: the formula's basic eyes of units in seki are fewer
    /// than two (RULES.md section 4); the procedures count two per block.
    Seki,
    /// A living unit with fewer than two owned points (a one-eyed or
    /// eyeless unit not in seki by the seki-liberty test): its basic eyes
    /// are fewer than two.
    FewEyes,
    /// The blocks (棋块) a person counts are not the living units: chains
    /// that share an owned region without an empty point touching both.
    BlockNotUnit,
    /// Owned points the owner must still fill: the formula charges them to
    /// the A editions (one more stone placed), the procedures see territory.
    Fills,
    /// Stones on the board plus those captured or dead are not the stones
    /// placed up to the first stop (play after a stop, suicide, setup
    /// removed): moves balanced, the stones are not (等子 is not reached).
    UnequalStones,
    /// An odd number of shared points: 填满计点 leaves one point, half each.
    OddShared,
    /// A side needs more stones than its bowl holds (填满计点, 填满数子).
    OutOfStones,
    /// No stone could be taken off for a 负着 (balancing the moves).
    NoBalancingMove,
    /// No boundary stone could be swapped for 还棋头.
    NoSwapPoint,
}

impl Finding {
    pub const ALL: [Finding; 9] = [
        Finding::Seki,
        Finding::FewEyes,
        Finding::BlockNotUnit,
        Finding::Fills,
        Finding::UnequalStones,
        Finding::OddShared,
        Finding::OutOfStones,
        Finding::NoBalancingMove,
        Finding::NoSwapPoint,
    ];

    /// Stable snake_case name (the `methods_findings` column).
    pub const fn as_str(self) -> &'static str {
        match self {
            Finding::Seki => "seki",
            Finding::FewEyes => "few_eyes",
            Finding::BlockNotUnit => "block_not_unit",
            Finding::Fills => "fills",
            Finding::UnequalStones => "unequal_stones",
            Finding::OddShared => "odd_shared",
            Finding::OutOfStones => "out_of_stones",
            Finding::NoBalancingMove => "no_balancing_move",
            Finding::NoSwapPoint => "no_swap_point",
        }
    }
}

impl Findings {
    pub fn insert(&mut self, f: Finding) {
        self.0 |= 1 << f as u16;
    }

    pub const fn contains(self, f: Finding) -> bool {
        self.0 & (1 << f as u16) != 0
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn iter(self) -> impl Iterator<Item = Finding> {
        Finding::ALL.into_iter().filter(move |f| self.contains(*f))
    }
}

impl std::fmt::Debug for Findings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// One procedure's count.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct MethodResult {
    pub method: Method,
    /// Black minus White before komi, as the procedure counts it; `None`
    /// when the procedure cannot be carried out (see the findings).
    pub margin: Option<f64>,
    /// The formula's margin before komi for [`Method::rule_set`].
    pub formula: i64,
}

impl MethodResult {
    pub fn agrees(&self) -> bool {
        self.margin == Some(self.formula as f64)
    }
}

/// Every procedure's count of one position, and why any differ.
#[derive(Clone, Debug, PartialEq)]
pub struct MethodsReport {
    pub results: Vec<MethodResult>,
    pub findings: Findings,
    /// Blocks (棋块) per colour, as the procedures count them.
    pub blocks: ByColor<u32>,
}

impl MethodsReport {
    /// The procedures whose count differs from their formula's.
    pub fn differing(&self) -> impl Iterator<Item = &MethodResult> {
        self.results.iter().filter(|r| !r.agrees())
    }
}

/// Counts `position` (dead stones `dead` still on it) by every procedure.
/// `counts` is the formula's count of the same position and `terms` its
/// accounting (`N_X`, captures during play).
pub fn count_methods(
    position: &Position,
    dead: &[Point],
    counts: &Counts,
    terms: &Terms,
) -> MethodsReport {
    let mut base = Work::new(position);
    for &p in dead {
        if position.get(p).is_some() {
            let i = position.index(p);
            base.cells[i] = None;
        }
    }
    let returned = ByColor::new(
        terms.captures.white + counts.dead.black,
        terms.captures.black + counts.dead.white,
    );
    let mut findings = Findings::default();
    let formula = |r: RuleSet| r.margin_before_komi(counts, terms.placed, ByColor::default());
    let labels = base.label();
    let blocks = labels.blocks;
    if counts.seki_liberties > 0 || counts.seki_stones.black + counts.seki_stones.white > 0 {
        findings.insert(Finding::Seki);
    }
    if Color::ALL
        .into_iter()
        .any(|c| counts.basic_eyes[c] < 2 * counts.units[c])
        && !findings.contains(Finding::Seki)
    {
        findings.insert(Finding::FewEyes);
    }
    if blocks != counts.units {
        findings.insert(Finding::BlockNotUnit);
    }
    if counts.fills.black + counts.fills.white > 0 {
        findings.insert(Finding::Fills);
    }
    if Color::ALL
        .into_iter()
        .any(|c| counts.stones[c] + returned[c] != terms.placed[c])
    {
        findings.insert(Finding::UnequalStones);
    }
    if labels.tally.shared % 2 == 1 {
        findings.insert(Finding::OddShared);
    }
    let ctx = Ctx {
        base: &base,
        returned,
        placed: terms.placed,
    };
    let results = Method::ALL
        .iter()
        .map(|&m| MethodResult {
            method: m,
            margin: ctx.run(m, &mut findings),
            formula: formula(m.rule_set()),
        })
        .collect();
    MethodsReport {
        results,
        findings,
        blocks,
    }
}

/// What every procedure starts from.
struct Ctx<'a> {
    /// The final position with the dead stones removed.
    base: &'a Work,
    /// Stones of each colour off the board: captured in play or dead.
    returned: ByColor<u32>,
    /// `N_X`.
    placed: ByColor<u32>,
}

/// Whose more, and how many: `(side, n)` for a Black-minus-White difference.
fn more(diff: i64) -> (Color, u32) {
    if diff >= 0 {
        (Color::Black, diff as u32)
    } else {
        (Color::White, (-diff) as u32)
    }
}

impl Ctx<'_> {
    fn diff_placed(&self) -> i64 {
        i64::from(self.placed.black) - i64::from(self.placed.white)
    }

    fn run(&self, m: Method, findings: &mut Findings) -> Option<f64> {
        let mut w = self.base.clone();
        let total = w.cells.len() as f64;
        match m {
            Method::ZiKong(e) => {
                let t = w.label().tally;
                let black = f64::from(t.stones.black + t.owned.black) + f64::from(t.shared) / 2.0;
                let pay = if e == Edition::A {
                    self.diff_placed()
                } else {
                    0
                };
                Some(2.0 * black - total - pay as f64)
            }
            Method::DengKong(e) => {
                self.balance(&mut w, e, findings)?;
                let t = w.label().tally;
                let (side, n) = more(i64::from(t.owned.black) - i64::from(t.owned.white));
                w.fill(side, n, &[]);
                let t = w.label().tally;
                debug_assert_eq!(t.owned.black, t.owned.white);
                Some(f64::from(t.stones.black) - f64::from(t.stones.white))
            }
            Method::DengZi(e) => {
                let leftover = self.fill_back(&mut w, false);
                self.balance(&mut w, e, findings)?;
                let t = w.label().tally;
                let mu = |c: Color| f64::from(t.owned[c]) - f64::from(leftover[c]);
                Some(mu(Color::Black) - mu(Color::White))
            }
            Method::TianManJiDian(e) => {
                let cap = w.cells.len() as u32 / 2;
                let area = w.tianman_jidian(cap, findings)?;
                let pay = if e == Edition::A {
                    self.diff_placed()
                } else {
                    0
                };
                Some(area.black - area.white - pay as f64)
            }
            Method::ShuLu(e) => {
                let leftover = self.fill_back(&mut w, true);
                self.balance(&mut w, e, findings)?;
                let labels = w.label();
                let lu = |c: Color| {
                    f64::from(labels.tally.owned[c])
                        - f64::from(leftover[c])
                        - 2.0 * f64::from(self_blocks(self.base)[c])
                };
                Some(lu(Color::Black) - lu(Color::White))
            }
            Method::TianManShuZi => {
                let cap = (w.cells.len() as u32).div_ceil(2);
                let labels = w.label();
                let mut living = ByColor::default();
                for c in Color::ALL {
                    let Some(bowl) = cap.checked_sub(labels.tally.stones[c]) else {
                        findings.insert(Finding::OutOfStones);
                        return None;
                    };
                    let want = labels.tally.owned[c] - labels.kept[c];
                    if want > bowl {
                        findings.insert(Finding::OutOfStones);
                    }
                    let filled = w.fill(c, want.min(bowl), &labels.eye);
                    // What the bowl no longer holds is on the board.
                    living[c] = cap - (bowl - filled);
                }
                Some(f64::from(living.black) - f64::from(living.white))
            }
            Method::TingLu => {
                let labels = w.label();
                let lu = |c: Color| labels.tally.owned[c] - labels.kept[c];
                let (side, n) = more(i64::from(lu(Color::Black)) - i64::from(lu(Color::White)));
                w.fill(side, n, &labels.eye);
                let t = w.label().tally;
                Some(f64::from(t.stones.black) - f64::from(t.stones.white))
            }
            Method::ZiLu => {
                let labels = w.label();
                let t = labels.tally;
                let black_area =
                    f64::from(t.stones.black + t.owned.black) + f64::from(t.shared) / 2.0;
                let white_area = total - black_area;
                let half = f64::from(t.shared) / 2.0;
                let living_b = black_area - f64::from(labels.kept.black) - half;
                let living_w = white_area - f64::from(labels.kept.white) - half;
                Some(living_b - living_w)
            }
            Method::TingXu => {
                let blocks = w.label().blocks;
                let (side, n) = more(i64::from(blocks.black) - i64::from(blocks.white));
                for _ in 0..n {
                    if !w.swap_one(side) {
                        findings.insert(Finding::NoSwapPoint);
                        return None;
                    }
                }
                let t = w.label().tally;
                let black = f64::from(t.stones.black + t.owned.black) + f64::from(t.shared) / 2.0;
                Some(2.0 * black - total)
            }
        }
    }

    /// 回填: each side's returned stones into its own area (keeping each
    /// block's basic eyes when `keep_eyes`); what does not fit stays beside
    /// the board and is returned per colour.
    fn fill_back(&self, w: &mut Work, keep_eyes: bool) -> ByColor<u32> {
        let labels = w.label();
        let mut leftover = ByColor::default();
        for c in Color::ALL {
            let avoid: &[bool] = if keep_eyes { &labels.eye } else { &[] };
            let filled = w.fill(c, self.returned[c], avoid);
            leftover[c] = self.returned[c] - filled;
        }
        leftover
    }

    /// 平衡手数 by the edition's 负着: the side that placed more takes that
    /// many of its stones off.
    fn balance(&self, w: &mut Work, e: Edition, findings: &mut Findings) -> Option<()> {
        let (side, n) = more(self.diff_placed());
        for _ in 0..n {
            if !w.take_one(side, e) {
                findings.insert(Finding::NoBalancingMove);
                return None;
            }
        }
        Some(())
    }
}

/// Blocks of the position before any procedure changed it.
fn self_blocks(base: &Work) -> ByColor<u32> {
    base.label().blocks
}

/// What a flood fill of a working board finds.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct Tally {
    stones: ByColor<u32>,
    /// Empty points in regions touching one colour only.
    owned: ByColor<u32>,
    shared: u32,
}

struct Labels {
    tally: Tally,
    /// Per point: the colour owning its region (`None`: a stone or shared).
    owner: Vec<Option<Color>>,
    blocks: ByColor<u32>,
    /// Per point: kept empty as a basic eye of a block (at most two per
    /// block, fewer when its areas hold fewer points).
    eye: Vec<bool>,
    /// Eye points kept per colour.
    kept: ByColor<u32>,
}

/// A working board: stones on points, changed by the procedures.
#[derive(Clone, Debug)]
struct Work {
    size: BoardSize,
    width: usize,
    cells: Vec<Option<Color>>,
}

impl Work {
    fn new(position: &Position) -> Work {
        Work {
            size: position.size(),
            width: position.size().width() as usize,
            cells: position.cells().to_vec(),
        }
    }

    fn neighbours(&self, i: usize) -> impl Iterator<Item = usize> {
        let w = self.width;
        let n = self.cells.len();
        let x = i % w;
        [
            (x > 0).then(|| i - 1),
            (x + 1 < w).then(|| i + 1),
            (i >= w).then(|| i - w),
            (i + w < n).then(|| i + w),
        ]
        .into_iter()
        .flatten()
    }

    #[allow(clippy::needless_range_loop)] // `i` indexes cells, owner, chain and eye alike
    fn label(&self) -> Labels {
        let n = self.cells.len();
        let mut tally = Tally::default();
        let mut owner = vec![None; n];
        let mut region = vec![u32::MAX; n];
        let mut region_owner: Vec<Option<Color>> = Vec::new();
        let mut region_points: Vec<Vec<usize>> = Vec::new();
        let mut chain = vec![u32::MAX; n];
        let mut chain_color: Vec<Color> = Vec::new();
        let mut stack = Vec::new();
        let mut nbr = Vec::with_capacity(n);
        flood::neighbour_table(self.size, &mut nbr);
        for i in 0..n {
            match self.cells[i] {
                Some(c) => {
                    tally.stones[c] += 1;
                    if chain[i] != u32::MAX {
                        continue;
                    }
                    let id = chain_color.len() as u32;
                    chain_color.push(c);
                    let joins = |q: usize| self.cells[q] == Some(c);
                    flood::fill(
                        &nbr,
                        &mut chain,
                        u32::MAX,
                        id,
                        i,
                        &mut stack,
                        joins,
                        |_| {},
                        |_| {},
                    );
                }
                None => {
                    if region[i] != u32::MAX {
                        continue;
                    }
                    let id = region_owner.len() as u32;
                    let mut points = Vec::new();
                    let mut mask = 0u8;
                    flood::fill(
                        &nbr,
                        &mut region,
                        u32::MAX,
                        id,
                        i,
                        &mut stack,
                        |q| self.cells[q].is_none(),
                        |p| points.push(p),
                        |q| {
                            if let Some(c) = self.cells[q] {
                                mask |= 1 << c.index();
                            }
                        },
                    );
                    let o = match mask {
                        1 => Some(Color::Black),
                        2 => Some(Color::White),
                        _ => None,
                    };
                    match o {
                        Some(c) => tally.owned[c] += points.len() as u32,
                        None => tally.shared += points.len() as u32,
                    }
                    for &p in &points {
                        owner[p] = o;
                    }
                    region_owner.push(o);
                    region_points.push(points);
                }
            }
        }
        // Blocks: chains joined through an owned empty point touching both.
        let mut parent: Vec<u32> = (0..chain_color.len() as u32).collect();
        fn find(parent: &mut [u32], mut x: u32) -> u32 {
            while parent[x as usize] != x {
                parent[x as usize] = parent[parent[x as usize] as usize];
                x = parent[x as usize];
            }
            x
        }
        for i in 0..n {
            let Some(c) = owner[i] else { continue };
            let mut first = None;
            for q in self.neighbours(i) {
                if self.cells[q] == Some(c) {
                    let r = find(&mut parent, chain[q]);
                    match first {
                        None => first = Some(r),
                        Some(f) if f != r => parent[r as usize] = f,
                        Some(_) => {}
                    }
                }
            }
        }
        let mut blocks = ByColor::default();
        for k in 0..chain_color.len() as u32 {
            if find(&mut parent, k) == k {
                blocks[chain_color[k as usize]] += 1;
            }
        }
        // Basic eyes: up to two points per block, the points next to it
        // first, then any of the areas it touches.
        let mut eye = vec![false; n];
        let mut kept_of = vec![0u8; chain_color.len()];
        let mut kept = ByColor::default();
        for i in 0..n {
            let Some(c) = owner[i] else { continue };
            for q in self.neighbours(i) {
                if self.cells[q] == Some(c) {
                    let r = find(&mut parent, chain[q]) as usize;
                    if kept_of[r] < 2 && !eye[i] {
                        kept_of[r] += 1;
                        eye[i] = true;
                        kept[c] += 1;
                    }
                }
            }
        }
        for i in 0..n {
            let Some(c) = self.cells[i] else { continue };
            let r = find(&mut parent, chain[i]) as usize;
            if kept_of[r] >= 2 {
                continue;
            }
            for q in self.neighbours(i) {
                if owner[q] != Some(c) {
                    continue;
                }
                for &p in &region_points[region[q] as usize] {
                    if kept_of[r] < 2 && !eye[p] {
                        kept_of[r] += 1;
                        eye[p] = true;
                        kept[c] += 1;
                    }
                }
            }
        }
        Labels {
            tally,
            owner,
            blocks,
            eye,
            kept,
        }
    }

    /// Puts up to `n` stones of `color` on its own empty points (not on
    /// points `avoid` marks), in board order; returns how many.
    #[allow(clippy::needless_range_loop)] // `i` indexes cells, owner and avoid
    fn fill(&mut self, color: Color, n: u32, avoid: &[bool]) -> u32 {
        if n == 0 {
            return 0;
        }
        let owner = self.label().owner;
        let mut done = 0;
        for i in 0..self.cells.len() {
            if done == n {
                break;
            }
            if self.cells[i].is_none()
                && owner[i] == Some(color)
                && !avoid.get(i).copied().unwrap_or(false)
            {
                self.cells[i] = Some(color);
                done += 1;
            }
        }
        done
    }

    /// One 负着 by `side`: A类 takes a stone off at the boundary with the
    /// other colour, leaving a shared point; B类 takes one off whose point
    /// becomes `side`'s own. Returns false when there is none.
    fn take_one(&mut self, side: Color, e: Edition) -> bool {
        let owner = self.label().owner;
        for i in 0..self.cells.len() {
            if self.cells[i] != Some(side) {
                continue;
            }
            // Which neighbours the emptied point would join: stones of
            // either colour, shared points, or points of an owned area.
            let (mut own, mut other, mut shared, mut own_area, mut other_area) =
                (false, false, false, false, false);
            for q in self.neighbours(i) {
                match (self.cells[q], owner[q]) {
                    (Some(c), _) if c == side => own = true,
                    (Some(_), _) => other = true,
                    (None, Some(c)) if c == side => own_area = true,
                    (None, Some(_)) => other_area = true,
                    (None, None) => shared = true,
                }
            }
            let ok = match e {
                // At the boundary, opening no area of either side: the
                // point becomes shared and nothing else changes hands.
                Edition::A => other && !own_area && !other_area && (own || shared),
                // Inside its own area: the point becomes its own.
                Edition::B => (own || own_area) && !other && !other_area && !shared,
            };
            if ok {
                self.cells[i] = None;
                return true;
            }
        }
        false
    }

    /// 还棋头: one stone of `side` at the boundary, with no empty point next
    /// to it (so that no area changes hands), becomes the other colour's.
    fn swap_one(&mut self, side: Color) -> bool {
        for i in 0..self.cells.len() {
            if self.cells[i] != Some(side) {
                continue;
            }
            let mut other = false;
            let mut empty = false;
            for q in self.neighbours(i) {
                match self.cells[q] {
                    None => empty = true,
                    Some(c) => other |= c != side,
                }
            }
            if other && !empty {
                self.cells[i] = Some(!side);
                return true;
            }
        }
        false
    }

    /// 填满计点 with bowls of `cap`: the areas as the seed reads them,
    /// `None` when a side has more stones on the board than its bowl.
    fn tianman_jidian(&mut self, cap: u32, findings: &mut Findings) -> Option<ByColor<f64>> {
        let labels = self.label();
        let t = labels.tally;
        let mut bowl = ByColor::default();
        for c in Color::ALL {
            let Some(b) = cap.checked_sub(t.stones[c]) else {
                findings.insert(Finding::OutOfStones);
                return None;
            };
            bowl[c] = b;
        }
        // Shared points first, q each, alternately, then the areas.
        let q = t.shared / 2;
        let mut placed = ByColor::<u32>::default();
        let shared: Vec<usize> = (0..self.cells.len())
            .filter(|&i| self.cells[i].is_none() && labels.owner[i].is_none())
            .collect();
        let mut next = shared.into_iter();
        for _ in 0..q {
            for c in Color::ALL {
                if placed[c] < bowl[c] {
                    if let Some(i) = next.next() {
                        self.cells[i] = Some(c);
                        placed[c] += 1;
                    }
                } else {
                    findings.insert(Finding::OutOfStones);
                }
            }
        }
        let mut area = ByColor::default();
        for c in Color::ALL {
            // Running out here is the seed's own case (the area is the bowl
            // plus what is left open): no finding.
            let room = bowl[c] - placed[c];
            let filled = self.fill_points(c, room, &labels.owner);
            let open = t.owned[c] - filled;
            let half = if t.shared % 2 == 1 { 0.5 } else { 0.0 };
            area[c] = if open == 0 {
                f64::from(cap - (room - filled)) + half
            } else {
                // The bowl ran out: 180 and the points left open.
                f64::from(cap + open) + half
            };
        }
        Some(area)
    }

    /// Fills up to `n` points `owner` gives to `color`; returns how many.
    #[allow(clippy::needless_range_loop)] // `i` indexes cells and owner
    fn fill_points(&mut self, color: Color, n: u32, owner: &[Option<Color>]) -> u32 {
        let mut done = 0;
        for i in 0..self.cells.len() {
            if done == n {
                break;
            }
            if self.cells[i].is_none() && owner[i] == Some(color) {
                self.cells[i] = Some(color);
                done += 1;
            }
        }
        done
    }
}
