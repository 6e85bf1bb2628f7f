"""The English → Chinese lexicon: every word the `translate-en-zh` grammar can use.

Semantic tags keep sentences sensible: a verb takes only objects sharing one of its tags ("read"
takes text, "drive" takes cars), and an adjective only nouns sharing one of its tags ("fresh" goes
with food). The tags are not words; they never appear in a sentence.
"""

from __future__ import annotations

from dataclasses import dataclass

from transformer.tasks.words import tags


@dataclass(frozen=True)
class Subject:
    """A subject phrase; `person` ("1s", "2s", "3s", "1p", "3p") drives English verb agreement."""

    en: str
    zh: str
    person: str
    alignment: tuple[int | None, ...] | None = None  # None: word for word, or all to the head word


@dataclass(frozen=True)
class Noun:
    """A countable noun; Chinese counts it with its own measure word (一 本 书, 一 辆 车)."""

    en: str
    zh: str
    measure: str
    tags: frozenset[str]


@dataclass(frozen=True)
class Mass:
    """A drink or dish counted by a container: "two cups of tea" → 两 杯 茶 (the container is the measure)."""

    en: str
    zh: str
    containers: tuple[str, ...]
    tags: frozenset[str]


@dataclass(frozen=True)
class Word:
    """A verb or adjective: its English and Chinese words and the noun tags it goes with."""

    en: str
    zh: str
    tags: frozenset[str]


# fmt: off
SUBJECTS: tuple[Subject, ...] = (
    Subject("i", "我", "1s"), Subject("you", "你", "2s"), Subject("he", "他", "3s"), Subject("she", "她", "3s"),
    Subject("we", "我们", "1p"), Subject("they", "他们", "3p"),
    Subject("my mother", "我 妈妈", "3s"), Subject("my father", "我 爸爸", "3s"), Subject("my parents", "我 父母", "3p"),
    Subject("my friend", "我 的 朋友", "3s", (0, None, 1)), Subject("my friends", "我 的 朋友们", "3p", (0, None, 1)),
    Subject("our teacher", "我们 的 老师", "3s", (0, None, 1)),
    Subject("the teacher", "老师", "3s"), Subject("the doctor", "医生", "3s"),
    Subject("the students", "学生们", "3p"), Subject("the children", "孩子们", "3p"),
    Subject("tom", "汤姆", "3s"), Subject("mary", "玛丽", "3s"), Subject("anna", "安娜", "3s"),
    Subject("david", "大卫", "3s"), Subject("lucy", "露西", "3s"), Subject("jack", "杰克", "3s"),
)

_NOUNS = (  # english, chinese, measure word, tags
    ("book", "书", "本", "text"), ("magazine", "杂志", "本", "text"), ("newspaper", "报纸", "份", "text"),
    ("letter", "信", "封", "text written mail"), ("story", "故事", "个", "text written"),
    ("novel", "小说", "本", "text written"), ("dictionary", "词典", "本", "thing small"), ("map", "地图", "张", "thing small"),
    ("film", "电影", "部", "film"), ("cartoon", "动画片", "部", "film"),
    ("apple", "苹果", "个", "food"), ("banana", "香蕉", "根", "food"), ("pear", "梨", "个", "food"),
    ("orange", "橙子", "个", "food"), ("egg", "鸡蛋", "个", "food cookable"), ("cake", "蛋糕", "个", "food homemade"),
    ("sandwich", "三明治", "个", "food homemade"), ("tomato", "西红柿", "个", "food"), ("watermelon", "西瓜", "个", "food"),
    ("dumpling", "饺子", "个", "food cookable homemade"), ("mooncake", "月饼", "个", "food"),
    ("cat", "猫", "只", "animal"), ("dog", "狗", "只", "animal"), ("bird", "鸟", "只", "animal"),
    ("rabbit", "兔子", "只", "animal"), ("duck", "鸭子", "只", "animal"), ("panda", "熊猫", "只", "animal"),
    ("monkey", "猴子", "只", "animal"), ("mouse", "老鼠", "只", "animal"), ("sheep", "羊", "只", "animal"),
    ("cow", "牛", "头", "animal"), ("horse", "马", "匹", "animal ride"), ("fish", "鱼", "条", "animal"),
    ("car", "车", "辆", "vehicle drive wipe"), ("bus", "公共汽车", "辆", "vehicle drive"),
    ("truck", "卡车", "辆", "vehicle drive"), ("taxi", "出租车", "辆", "vehicle drive"),
    ("bike", "自行车", "辆", "vehicle ride"), ("boat", "船", "条", "vehicle"),
    ("pen", "笔", "支", "thing small"), ("pencil", "铅笔", "支", "thing small"), ("umbrella", "伞", "把", "thing small"),
    ("key", "钥匙", "把", "thing small"), ("knife", "刀", "把", "thing small"), ("ticket", "票", "张", "thing small"),
    ("photo", "照片", "张", "thing small mail"), ("phone", "手机", "部", "thing small"), ("watch", "手表", "块", "thing small"),
    ("toy", "玩具", "个", "thing small"), ("ball", "球", "个", "thing small ball"), ("gift", "礼物", "份", "thing mail"),
    ("bag", "包", "个", "thing small openable"), ("box", "盒子", "个", "thing openable bulky"),
    ("chair", "椅子", "把", "thing bulky wipe"), ("table", "桌子", "张", "thing bulky wipe"), ("bed", "床", "张", "thing bulky"),
    ("computer", "电脑", "台", "thing bulky"), ("stone", "石头", "块", "ball"), ("picture", "画", "幅", "drawing"),
    ("door", "门", "扇", "door wipe"), ("window", "窗户", "扇", "door wipe"),
    ("shirt", "衬衫", "件", "clothes"), ("coat", "外套", "件", "clothes"), ("sweater", "毛衣", "件", "clothes"),
    ("dress", "裙子", "条", "clothes"), ("hat", "帽子", "顶", "clothes"),
    ("tree", "树", "棵", "plant"), ("flower", "花", "朵", "plant"), ("house", "房子", "栋", "building"),
    ("friend", "朋友", "个", "person"), ("student", "学生", "个", "person"), ("child", "孩子", "个", "person"),
    ("baby", "宝宝", "个", "person"), ("man", "男人", "个", "person"), ("woman", "女人", "个", "person"),
    ("doctor", "医生", "位", "person"), ("teacher", "老师", "位", "person"), ("nurse", "护士", "位", "person"),
    ("farmer", "农民", "位", "person"), ("singer", "歌手", "位", "person"),
)
NOUNS: tuple[Noun, ...] = tuple(Noun(en, zh, m, tags(t)) for en, zh, m, t in _NOUNS)

CONTAINERS: dict[str, str] = {"cup": "杯", "glass": "杯", "bottle": "瓶", "bowl": "碗"}  # english → measure word
MASSES: tuple[Mass, ...] = tuple(Mass(en, zh, tuple(c.split()), tags(t)) for en, zh, c, t in (
    ("coffee", "咖啡", "cup", "drink"), ("tea", "茶", "cup", "drink"), ("water", "水", "cup glass bottle", "drink"),
    ("milk", "牛奶", "cup glass bottle", "drink"), ("juice", "果汁", "glass bottle", "drink"),
    ("soup", "汤", "bowl", "drink bowl"), ("rice", "米饭", "bowl", "bowl"), ("noodles", "面条", "bowl", "bowl"),
))

_SEEN = "animal vehicle thing person building plant drawing"
VERBS: tuple[Word, ...] = tuple(Word(en, zh, tags(t)) for en, zh, t in (
    ("read", "读", "text"), ("write", "写", "written"), ("see", "看见", _SEEN),
    ("draw", "画", "animal vehicle plant building drawing person"),
    ("buy", "买", "text thing food animal vehicle clothes plant drink bowl building drawing"),
    ("sell", "卖", "text thing food vehicle clothes plant drink bowl building drawing"),
    ("like", "喜欢", "text film food animal vehicle thing clothes plant building drawing"),
    ("want", "想要", "text food animal vehicle thing clothes drink bowl"),
    ("have", "有", "text animal vehicle thing clothes building"), ("need", "需要", "text thing vehicle clothes"),
    ("eat", "吃", "food bowl"), ("drink", "喝", "drink"), ("cook", "煮", "cookable bowl"), ("make", "做", "homemade"),
    ("wash", "洗", "clothes vehicle"), ("clean", "擦", "wipe"), ("bring", "带", "text small food drink"),
    ("find", "找到", "text small animal"), ("lose", "丢", "text small"), ("borrow", "借", "text small"), ("carry", "搬", "bulky"),
    ("feed", "喂", "animal"), ("love", "爱", "animal"), ("watch", "看", "film"), ("open", "打开", "door openable"),
    ("close", "关上", "door"), ("send", "寄", "mail"), ("plant", "种", "plant"), ("ride", "骑", "ride"), ("drive", "开", "drive"),
    ("kick", "踢", "ball"), ("throw", "扔", "ball"), ("meet", "遇见", "person"), ("help", "帮助", "person"),
    ("know", "认识", "person"),
))

_COLOURED = "vehicle thing clothes animal plant building"
ADJECTIVES: tuple[Word, ...] = tuple(Word(en, zh, tags(t)) for en, zh, t in (
    ("red", "红色", _COLOURED), ("blue", "蓝色", _COLOURED), ("black", "黑色", _COLOURED), ("white", "白色", _COLOURED),
    ("green", "绿色", _COLOURED), ("yellow", "黄色", _COLOURED), ("brown", "棕色", _COLOURED),
    ("purple", "紫色", _COLOURED), ("pink", "粉色", _COLOURED), ("grey", "灰色", _COLOURED),
    ("beautiful", "漂亮", _COLOURED + " person drawing"), ("interesting", "有趣", "text film drawing"),
    ("famous", "有名", "text film person drawing"), ("expensive", "昂贵", "vehicle thing clothes building drawing"),
    ("cheap", "便宜", "vehicle thing clothes food"), ("clean", "干净", "thing clothes vehicle"),
    ("fresh", "新鲜", "food"), ("delicious", "好吃", "food"), ("sweet", "甜", "food"), ("cute", "可爱", "animal"),
    ("hungry", "饥饿", "animal"), ("friendly", "友好", "animal person"), ("quiet", "安静", "animal person"),
    ("kind", "善良", "person"),
))

SINGULAR_DETERMINERS = {"a": "一", "one": "一", "this": "这", "that": "那"}  # "a" becomes "an" before a vowel
PLURAL_DETERMINERS = {
    "two": "两", "three": "三", "four": "四", "five": "五", "six": "六", "seven": "七", "eight": "八", "nine": "九",
}

PLACES: tuple[tuple[str, str, str], ...] = (  # english preposition, english noun phrase, chinese place (after 在)
    ("at", "home", "家"), ("at", "school", "学校"), ("in", "the library", "图书馆"), ("in", "the park", "公园"),
    ("in", "the garden", "花园"), ("in", "the kitchen", "厨房"), ("in", "the classroom", "教室"),
    ("in", "the office", "办公室"), ("in", "the shop", "商店"), ("in", "the supermarket", "超市"),
    ("in", "the restaurant", "餐厅"), ("in", "the bedroom", "卧室"), ("in", "the living room", "客厅"),
    ("at", "the station", "车站"), ("at", "the airport", "机场"), ("at", "the hospital", "医院"),
    ("at", "the market", "市场"), ("at", "the zoo", "动物园"), ("at", "the beach", "海边"), ("at", "the cafe", "咖啡馆"),
    ("at", "the museum", "博物馆"),
)

TIMES: tuple[tuple[str, str, tuple[int | None, ...] | None], ...] = (  # english, chinese, alignment (None: default)
    ("today", "今天", None), ("tonight", "今天 晚上", None), ("now", "现在", None), ("every day", "每天", None),
    ("every morning", "每天 早上", None), ("every afternoon", "每天 下午", None), ("every evening", "每天 晚上", None),
    ("every week", "每 个 星期", (0, None, 1)), ("every weekend", "每 个 周末", (0, None, 1)),
    ("this morning", "今天 早上", None), ("this afternoon", "今天 下午", None), ("this evening", "今天 晚上", None),
    ("at night", "晚上", None), ("in the morning", "早上", None), ("in the afternoon", "下午", None),
    ("in the evening", "晚上", None), ("on monday", "星期一", None), ("on tuesday", "星期二", None),
    ("on wednesday", "星期三", None), ("on thursday", "星期四", None), ("on friday", "星期五", None),
    ("on saturday", "星期六", None), ("on sunday", "星期天", None),
)
# fmt: on
