import SeededRandom

/// The words `diary-server seed` writes with, most common first, drawn by Zipf's law.
///
/// A benchmark of search needs both ends of real text: words in nearly every entry ("coffee",
/// in about 97 % of them, as the million-entry measurements of issue 25 used) and words in a
/// handful ("zanzibar", about one entry in a thousand). So: everyday English diary words, then
/// about 20,000 made-up words built from syllables, which fill the long tail; Japanese
/// sentences draw from their own ranked list, so that two-character words (紅葉, 京都) are
/// common and rare too.
enum SeedVocabulary {
    /// Everyday words, roughly by how often a diary uses them.
    static let common = """
        the and coffee i a to was of in it we my at with on for morning then rain train home after \
        day walked station office lunch noodles meeting evening river bridge cat book tea garden \
        friend dinner market bread quiet cold warm sunny cloudy code review bug fixed neighbour \
        chapter tomatoes bicycle park letter called mother curry cheese wind street window shop \
        walk read wrote slept early late again today yesterday tomorrow night week little long \
        good small new old first last tired happy busy kitchen rice soup fish eggs apples milk \
        sugar salt pepper bowl cup plate table chair desk lamp door stairs roof yard fence tree \
        leaves flowers grass moss stone path hill mountain lake sea beach harbour boat ship \
        ferry bus tram taxi ticket platform map guide temple shrine castle museum gallery library \
        school teacher student class lesson homework exam notebook pencil paper photo camera \
        film music song piano guitar radio news paper magazine letter postcard stamp parcel \
        sister brother father uncle aunt cousin baby child dog bird crow pigeon sparrow fox \
        autumn winter spring summer snow frost fog storm thunder umbrella coat scarf gloves boots \
        hat shirt sweater laundry dishes cleaning repair plumber electrician landlord rent bills \
        bank post office clinic doctor pharmacy medicine fever cough headache rest bath shower \
        towel soap mirror clock alarm phone email message calendar deadline project plan budget \
        report slides colleague manager client contract invoice holiday festival lantern fireworks
        """.split(separator: " ").map(String.init)

    /// Japanese words, roughly by how often a diary uses them.
    static let japanese = """
        今日 雨 天気 散歩 電車 会社 仕事 友達 写真 京都 紅葉 日記 旅行 珈琲 朝 夜 昼 \
        ご飯 公園 本 猫 犬 川 橋 駅 海 山 空 雪 桜 春 夏 秋 冬 東京 大阪 奈良 寺 神社 \
        祭り 花火 温泉 旅館 新幹線 地図 切符 買い物 料理 味噌汁 お茶 団子 和菓子 蕎麦 \
        家族 母 父 姉 弟 先生 学校 図書館 映画 音楽 手紙 夢 風 月 星 庭 窓 傘 靴
        """.split(separator: " ").map(String.init)

    /// Words shared with the stress suite and the benchmark's queries, placed deep in the tail.
    static let rare = ["zanzibar", "marmalade", "quokka"]

    /// How many made-up words fill the tail after `common`.
    static let madeUpCount = 20_000

    static let particles = ["は", "を", "に", "で", "と", "の", "へ", "も"]
    static let endings = ["でした。", "ました。", "です。", "だった。", "を見た。"]

    /// Tags, most used first: an entry has up to three.
    static let tags = """
        daily work food travel kyoto family reading photo weather music cooking walking \
        garden cats books tea movies health money friends autumn winter spring summer \
        trains temples festival night notes ideas
        """.split(separator: " ").map(String.init)

    /// `common`, then the made-up words with `rare` among them, in rank order.
    static let words: [String] = {
        var random = SplitMix64(seed: 7)
        let syllables = ["ka", "zan", "zi", "bar", "mo", "ri", "to", "nel", "qua", "vek", "su", "lo", "pim", "dra", "ue", "sha", "ton", "ix"]
        var seen = Set(common)
        var tail: [String] = []
        while tail.count < madeUpCount {
            let word = (0..<(2 + random.next(3))).map { _ in syllables[random.next(syllables.count)] }.joined()
            if seen.insert(word).inserted { tail.append(word) }
        }
        // No made-up word holds a rare one, so that searching for it finds only its own entries.
        tail.removeAll { word in rare.contains { word.contains($0) } }
        // Ranks near 12,000 of 20,000: each in about one entry of a thousand.
        for (offset, word) in rare.enumerated() { tail.insert(word, at: 12_000 + offset * 500) }
        return common + tail
    }()
}
