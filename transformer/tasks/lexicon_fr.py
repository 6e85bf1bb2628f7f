"""The English → French lexicon: every word the `translate-en-fr` grammar can use.

No elision: French writes "l'arbre", "j'aime", "d'eau" before a vowel or mute h, which would need
apostrophe tokens. Instead every French noun, verb form and mass noun here starts with a consonant
sounded as one, so "le", "je" and "de" never elide, and there is no hyphenated word. (The contraction
à + le = "au" is kept, as one token aligned to "at".)

Only adjectives that really follow the noun are used: colours, nationalities, shapes and a few
others (lourd, cassé, vide, chaud, froid, mouillé, rapide, sucré, sale). Semantic tags work as in
`lexicon_zh`: verbs and adjectives only meet nouns that share a tag with them.
"""

from __future__ import annotations

from dataclasses import dataclass

from transformer.tasks.words import tags

PERSONS = ("1s", "2s", "3s", "1p", "3p")  # the order of a verb's five French forms: je, tu, il/elle, nous, ils


@dataclass(frozen=True)
class Subject:
    """A subject phrase; `person` picks the English and the French verb form."""

    en: str
    fr: str
    person: str


@dataclass(frozen=True)
class Noun:
    """A countable noun and its grammatical gender ("m" or "f"), which articles and adjectives agree with."""

    en: str
    fr: str
    gender: str
    tags: frozenset[str]


@dataclass(frozen=True)
class Mass:
    """A drink or dish counted by a container: "a cup of tea" → "une tasse de thé"."""

    en: str
    fr: str
    containers: tuple[str, ...]
    tags: frozenset[str]


@dataclass(frozen=True)
class Verb:
    """An English verb (possibly two words, "look for") and its French forms for je, tu, il, nous, ils."""

    en: str
    forms: tuple[str, str, str, str, str]
    tags: frozenset[str]


@dataclass(frozen=True)
class Adjective:
    """An adjective that follows the noun, with its forms: masculine, feminine, masculine plural, feminine plural."""

    en: str
    forms: tuple[str, str, str, str]
    tags: frozenset[str]


@dataclass(frozen=True)
class Determiner:
    """English singular and plural words (None: no such number) and French masculine, feminine, plural forms."""

    en_singular: str | None
    en_plural: str | None
    masculine: str | None
    feminine: str | None
    plural: str | None


def _er(infinitive: str) -> tuple[str, str, str, str, str]:
    """The present tense of a regular -er verb: "regarder" → regarde, regardes, regarde, regardons, regardent."""
    stem = infinitive[:-2]
    return (stem + "e", stem + "es", stem + "e", stem + "ons", stem + "ent")


# fmt: off
SUBJECTS: tuple[Subject, ...] = tuple(Subject(en, fr, p) for en, fr, p in (
    ("i", "je", "1s"), ("you", "tu", "2s"), ("he", "il", "3s"), ("she", "elle", "3s"), ("we", "nous", "1p"),
    ("they", "ils", "3p"), ("my mother", "ma mère", "3s"), ("my father", "mon père", "3s"), ("my sister", "ma sœur", "3s"),
    ("my brother", "mon frère", "3s"), ("my parents", "mes parents", "3p"), ("the teacher", "le professeur", "3s"),
    ("the doctor", "le médecin", "3s"), ("the boy", "le garçon", "3s"), ("the girl", "la fille", "3s"),
    ("the children", "les enfants", "3p"), ("the neighbours", "les voisins", "3p"), ("paul", "paul", "3s"),
    ("marie", "marie", "3s"), ("sophie", "sophie", "3s"), ("thomas", "thomas", "3s"), ("julie", "julie", "3s"),
))

NOUNS: tuple[Noun, ...] = tuple(Noun(en, fr, g, tags(t)) for en, fr, g, t in (  # english, french, gender, tags
    ("cat", "chat", "m", "animal"), ("dog", "chien", "m", "animal"), ("horse", "cheval", "m", "animal"),
    ("rabbit", "lapin", "m", "animal"), ("duck", "canard", "m", "animal"), ("pig", "cochon", "m", "animal"),
    ("snake", "serpent", "m", "animal"), ("mouse", "souris", "f", "animal"), ("cow", "vache", "f", "animal"),
    ("hen", "poule", "f", "animal"), ("turtle", "tortue", "f", "animal"), ("frog", "grenouille", "f", "animal"),
    ("goat", "chèvre", "f", "animal"),
    ("car", "voiture", "f", "vehicle"), ("bike", "vélo", "m", "vehicle"), ("truck", "camion", "m", "vehicle"),
    ("boat", "bateau", "m", "vehicle buildable"), ("bus", "bus", "m", "vehicle"), ("train", "train", "m", "vehicle"),
    ("taxi", "taxi", "m", "vehicle"), ("motorbike", "moto", "f", "vehicle"),
    ("shirt", "chemise", "f", "clothes"), ("dress", "robe", "f", "clothes"), ("skirt", "jupe", "f", "clothes"),
    ("hat", "chapeau", "m", "clothes"), ("coat", "manteau", "m", "clothes"), ("sweater", "pull", "m", "clothes"),
    ("jacket", "veste", "f", "clothes"), ("shoe", "chaussure", "f", "clothes"), ("sock", "chaussette", "f", "clothes"),
    ("apple", "pomme", "f", "food throwable fruit"), ("banana", "banane", "f", "food fruit"),
    ("pear", "poire", "f", "food fruit"),
    ("tomato", "tomate", "f", "food fruit"), ("cake", "gâteau", "m", "food"), ("pie", "tarte", "f", "food"),
    ("cheese", "fromage", "m", "food"), ("chicken", "poulet", "m", "food"), ("carrot", "carotte", "f", "food fruit"),
    ("strawberry", "fraise", "f", "food fruit"), ("lemon", "citron", "m", "food fruit"), ("pizza", "pizza", "f", "food"),
    ("sandwich", "sandwich", "m", "food"), ("cookie", "biscuit", "m", "food"),
    ("book", "livre", "m", "text"), ("newspaper", "journal", "m", "text"), ("letter", "lettre", "f", "text"),
    ("map", "carte", "f", "text"), ("magazine", "magazine", "m", "text"),
    ("pen", "stylo", "m", "thing"), ("pencil", "crayon", "m", "thing"), ("key", "clé", "f", "thing throwable"),
    ("phone", "téléphone", "m", "thing machine"), ("watch", "montre", "f", "thing machine jewel"),
    ("ring", "bague", "f", "thing jewel"), ("ball", "ballon", "m", "thing throwable"), ("ticket", "billet", "m", "thing"),
    ("photo", "photo", "f", "thing picture"), ("painting", "tableau", "m", "thing picture"), ("gift", "cadeau", "m", "thing"),
    ("knife", "couteau", "m", "thing"), ("spoon", "cuillère", "f", "thing"), ("fork", "fourchette", "f", "thing"),
    ("candle", "bougie", "f", "thing"), ("guitar", "guitare", "f", "thing"), ("umbrella", "parapluie", "m", "thing"),
    ("toy", "jouet", "m", "thing"), ("mirror", "miroir", "m", "thing shape"), ("lamp", "lampe", "f", "thing machine"),
    ("box", "boîte", "f", "thing container closable shape heavy"), ("bag", "sac", "m", "thing container closable heavy"),
    ("basket", "panier", "m", "thing container shape"),
    ("cup", "tasse", "f", "container"), ("glass", "verre", "m", "container"), ("bottle", "bouteille", "f", "container closable"),
    ("bowl", "bol", "m", "container"),
    ("table", "table", "f", "furniture shape buildable"), ("chair", "chaise", "f", "furniture"), ("bed", "lit", "m", "furniture"),
    ("sofa", "canapé", "m", "furniture"), ("carpet", "tapis", "m", "furniture shape"), ("desk", "bureau", "m", "furniture"),
    ("door", "porte", "f", "door closable"), ("window", "fenêtre", "f", "door closable shape"),
    ("flower", "fleur", "f", "plant"), ("plant", "plante", "f", "plant"), ("house", "maison", "f", "building buildable"),
    ("boy", "garçon", "m", "person"), ("girl", "fille", "f", "person"), ("teacher", "professeur", "m", "person"),
    ("doctor", "médecin", "m", "person"), ("baby", "bébé", "m", "person"), ("woman", "femme", "f", "person"),
    ("neighbour", "voisin", "m", "person"), ("police officer", "policier", "m", "person"),
    ("singer", "chanteur", "m", "person"), ("postman", "facteur", "m", "person"), ("cook", "cuisinier", "m", "person"),
))

CONTAINERS: dict[str, str] = {"cup": "tasse", "glass": "verre", "bottle": "bouteille", "bowl": "bol"}  # nouns above
OF = ("of", "de")
MASSES: tuple[Mass, ...] = tuple(Mass(en, fr, tuple(c.split()), tags(t)) for en, fr, c, t in (
    ("tea", "thé", "cup", "drink"), ("coffee", "café", "cup", "drink"), ("cocoa", "chocolat", "cup bowl", "drink"),
    ("milk", "lait", "cup glass bottle", "drink"), ("juice", "jus", "glass bottle", "drink"),
    ("lemonade", "limonade", "glass bottle", "drink"), ("soup", "soupe", "bowl", "drink food"),
))

_VISIBLE = "animal vehicle thing furniture door person plant building clothes container"
VERBS: tuple[Verb, ...] = tuple(Verb(en, f if isinstance(f, tuple) else tuple(f.split()), tags(t)) for en, f, t in (
    ("see", "vois vois voit voyons voient", _VISIBLE),
    ("watch", _er("regarder"), "animal vehicle person picture"),
    ("eat", "mange manges mange mangeons mangent", "food"),
    ("drink", "bois bois boit buvons boivent", "drink"),
    ("take", "prends prends prend prenons prennent", "thing vehicle food drink container"),
    ("wear", _er("porter"), "clothes jewel"),
    ("look for", _er("chercher"), "thing animal person clothes"),
    ("find", _er("trouver"), "thing animal clothes"),
    ("sell", "vends vends vend vendons vendent", "thing vehicle food clothes furniture building animal plant"),
    ("draw", _er("dessiner"), "animal vehicle building plant person furniture"),
    ("wash", _er("laver"), "vehicle clothes container animal"),
    ("prepare", _er("préparer"), "food drink"),
    ("lose", "perds perds perd perdons perdent", "thing clothes"),
    ("keep", _er("garder"), "thing animal"),
    ("choose", "choisis choisis choisit choisissons choisissent", "thing clothes food furniture animal"),
    ("read", "lis lis lit lisons lisent", "text"),
    ("paint", "peins peins peint peignons peignent", "furniture door building vehicle"),
    ("feed", "nourris nourris nourrit nourrissons nourrissent", "animal"),
    ("hold", "tiens tiens tient tenons tiennent", "thing container"),
    ("know", "connais connais connaît connaissons connaissent", "person"),
    ("want", "veux veux veut voulons veulent", "thing food drink vehicle clothes animal building"),
    ("close", _er("fermer"), "closable"),
    ("clean", "nettoie nettoies nettoie nettoyons nettoient", "furniture vehicle building door container"),
    ("push", _er("pousser"), "vehicle furniture"),
    ("pull", _er("tirer"), "furniture"),
    ("throw", "lance lances lance lançons lancent", "throwable"),
    ("follow", "suis suis suit suivons suivent", "animal person vehicle"),
    ("meet", _er("rencontrer"), "person"),
    ("repair", _er("réparer"), "vehicle furniture machine"),
    ("fill", "remplis remplis remplit remplissons remplissent", "container"),
    ("count", _er("compter"), "animal person thing text"),
    ("build", "construis construis construit construisons construisent", "buildable"),
))

_COLOURED = "animal vehicle clothes thing furniture door plant building container fruit"
ADJECTIVES: tuple[Adjective, ...] = tuple(Adjective(en, tuple(f.split()), tags(t)) for en, f, t in (  # m, f, m pl, f pl
    ("black", "noir noire noirs noires", _COLOURED),
    ("white", "blanc blanche blancs blanches", _COLOURED),
    ("green", "vert verte verts vertes", _COLOURED),
    ("red", "rouge rouge rouges rouges", _COLOURED),
    ("blue", "bleu bleue bleus bleues", _COLOURED),
    ("yellow", "jaune jaune jaunes jaunes", _COLOURED),
    ("grey", "gris grise gris grises", _COLOURED),
    ("pink", "rose rose roses roses", _COLOURED),
    ("purple", "violet violette violets violettes", _COLOURED),
    ("brown", "marron marron marron marron", _COLOURED),
    ("orange", "orange orange orange orange", _COLOURED),
    ("french", "français française français françaises", "vehicle person food text"),
    ("chinese", "chinois chinoise chinois chinoises", "vehicle person food text"),
    ("english", "anglais anglaise anglais anglaises", "vehicle person food text"),
    ("italian", "italien italienne italiens italiennes", "vehicle person food text"),
    ("japanese", "japonais japonaise japonais japonaises", "vehicle person food text"),
    ("german", "allemand allemande allemands allemandes", "vehicle person food text"),
    ("american", "américain américaine américains américaines", "vehicle person food text"),
    ("spanish", "espagnol espagnole espagnols espagnoles", "vehicle person food text"),
    ("round", "rond ronde ronds rondes", "shape"),
    ("square", "carré carrée carrés carrées", "shape"),
    ("heavy", "lourd lourde lourds lourdes", "furniture heavy"),
    ("broken", "cassé cassée cassés cassées", "thing furniture vehicle door container"),
    ("empty", "vide vide vides vides", "container"),
    ("hot", "chaud chaude chauds chaudes", "food"),
    ("cold", "froid froide froids froides", "food"),
    ("sweet", "sucré sucrée sucrés sucrées", "food"),
    ("wet", "mouillé mouillée mouillés mouillées", "animal clothes"),
    ("fast", "rapide rapide rapides rapides", "vehicle animal"),
    ("dirty", "sale sale sales sales", "clothes vehicle animal furniture container"),
))

SINGULAR_DETERMINERS: tuple[Determiner, ...] = (  # "a" becomes "an" before a vowel
    Determiner("a", None, "un", "une", None), Determiner("one", None, "un", "une", None),
)
BOTH_DETERMINERS: tuple[Determiner, ...] = tuple(Determiner(*d) for d in (
    ("the", "the", "le", "la", "les"), ("my", "my", "mon", "ma", "mes"), ("your", "your", "ton", "ta", "tes"),
    ("his", "his", "son", "sa", "ses"), ("her", "her", "son", "sa", "ses"), ("our", "our", "notre", "notre", "nos"),
    ("their", "their", "leur", "leur", "leurs"), ("this", "these", "ce", "cette", "ces"),
))
PLURAL_DETERMINERS: tuple[Determiner, ...] = tuple(Determiner(None, en, None, None, fr) for en, fr in (
    ("two", "deux"), ("three", "trois"), ("four", "quatre"), ("five", "cinq"), ("six", "six"), ("seven", "sept"),
    ("eight", "huit"), ("nine", "neuf"),
))

PLACES: tuple[tuple[str, str, tuple[int | None, ...] | None], ...] = (  # english, french, alignment (None: default)
    ("in the garden", "dans le jardin", None), ("in the kitchen", "dans la cuisine", None), ("in the park", "dans le parc", None),
    ("in the street", "dans la rue", None), ("in the forest", "dans la forêt", None), ("in the car", "dans la voiture", None),
    ("in the bedroom", "dans la chambre", None), ("in the living room", "dans le salon", (0, 1, 3)),
    ("in the library", "à la bibliothèque", None), ("at home", "à la maison", (0, None, 1)),
    ("at the market", "au marché", (0, 2)),
    ("at the station", "à la gare", None), ("at the beach", "à la plage", None), ("at the restaurant", "au restaurant", (0, 2)),
    ("at the zoo", "au zoo", (0, 2)), ("at the museum", "au musée", (0, 2)), ("at the cinema", "au cinéma", (0, 2)),
    ("at the pool", "à la piscine", None), ("at the bakery", "à la boulangerie", None),
    ("at the post office", "à la poste", (0, 1, 3)), ("in the city", "en ville", (0, 2)), ("in paris", "à paris", None),
    ("in london", "à londres", None),
)

TIMES: tuple[tuple[str, str, tuple[int | None, ...] | None], ...] = (  # english, french, alignment (None: default)
    ("every day", "tous les jours", (0, None, 1)), ("every morning", "tous les matins", (0, None, 1)),
    ("every evening", "tous les soirs", (0, None, 1)), ("every night", "toutes les nuits", (0, None, 1)),
    ("every week", "toutes les semaines", (0, None, 1)), ("every sunday", "tous les dimanches", (0, None, 1)),
    ("now", "maintenant", None), ("tonight", "ce soir", None), ("this morning", "ce matin", None),
    ("this evening", "ce soir", None), ("this week", "cette semaine", None), ("on monday", "lundi", None),
    ("on tuesday", "mardi", None), ("on wednesday", "mercredi", None), ("on thursday", "jeudi", None),
    ("on friday", "vendredi", None), ("on saturday", "samedi", None), ("on sunday", "dimanche", None),
)
# fmt: on
