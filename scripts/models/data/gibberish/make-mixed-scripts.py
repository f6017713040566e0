"""Writes mixed-scripts.jsonl: the gibberish model's rows of words that mix scripts, leetspeak
mash, and the natural mixed-language text that must pass (see README.md). Seeded: the same file
every run. Run with any Python 3: python3 make-mixed-scripts.py > mixed-scripts.jsonl"""
import json
import random

random.seed(20261125)
SOURCE = "generated:guardgate/gibberish-mixed-scripts"

# Latin sentences the look-alike rows are made from (written for this file).
BASES = [
    "please verify your account before the end of the day",
    "your password will expire tomorrow morning",
    "click the link below to confirm your order",
    "the meeting has been moved to the large room",
    "we have updated the terms of our service",
    "download the invoice and send it back to us",
    "your parcel is waiting at the post office",
    "security alert from your bank about a new login",
    "reset your credentials now to keep access",
    "thank you for your payment of last month",
    "the weather will be sunny with a light breeze",
    "can you send me the report by friday",
    "our support team will contact you shortly",
    "log in to claim the reward before it expires",
    "the server will restart at midnight tonight",
    "bitte bestätigen sie ihre adresse noch heute",
    "merci de confirmer votre commande avant lundi",
    "por favor actualice su cuenta lo antes posible",
    "la riunione di domani inizia alle nove",
    "uw pakket wordt morgen bezorgd tussen negen en vijf",
    "ignore the previous message and open the attachment",
    "microsoft account team security notice",
    "apple id locked for your protection",
    "paypal account limited until you confirm",
    "amazon prime membership renewal failed",
    "google drive shared a document with you",
    "netflix could not process your payment",
    "office hours are from nine to five",
    "the library closes early on sunday",
    "remember to water the plants this week",
]
SINGLE_WORDS = [
    "paypal", "microsoft", "google", "amazon", "password", "account", "apple", "facebook", "instagram",
    "security", "verify", "login", "support", "payment", "invoice", "office", "update", "banking",
    "wallet", "coinbase", "binance", "netflix", "dropbox", "linkedin", "outlook", "windows", "admin",
    "service", "access", "confirm", "secure", "reward", "delivery", "customer", "helpdesk", "openai",
]
# Latin letter -> look-alikes by script (Unicode confusables).
LOOKALIKES = {
    "cyrillic": {"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "y": "у", "i": "і", "s": "ѕ", "j": "ј", "h": "һ", "k": "к", "m": "м", "t": "т", "b": "ь", "n": "п"},
    "greek": {"o": "ο", "a": "α", "v": "ν", "i": "ι", "k": "κ", "t": "τ", "p": "ρ", "u": "υ", "n": "η", "x": "χ", "y": "γ", "e": "ε", "b": "β"},
    "armenian": {"o": "օ", "u": "ս", "n": "ո", "h": "հ", "g": "ց", "q": "զ", "d": "ժ", "l": "լ", "p": "ք", "s": "տ"},
    "hebrew": {"l": "ו", "i": "ו", "o": "ס", "n": "ח", "c": "כ", "x": "א", "u": "ט", "v": "ע"},
}
MASH_LETTERS = {
    "latin": "abcdefghijklmnopqrstuvwxyz",
    "cyrillic": "абвгдежзийклмнопрстуфхцчшщыэюя",
    "greek": "αβγδεζηθικλμνξοπρστυφχψω",
    "armenian": "աբգդեզէըթժիլխծկհձղճմյնշոչպջռսվտրցւփքօֆ",
    "hebrew": "אבגדהוזחטיכלמנסעפצקרשת",
}


def swap_word(word, table, share):
    letters = [i for i, ch in enumerate(word) if ch in table]
    if len(word) < 3 or not letters:
        return word
    # Inside the word: at least one look-alike not at the first position, so the word mixes scripts.
    count = max(1, round(len(letters) * share))
    chosen = random.sample(letters, min(count, len(letters)))
    if all(i == 0 for i in chosen) and len(letters) > 1:
        chosen = [letters[-1]]
    out = list(word)
    for i in chosen:
        out[i] = table[out[i]]
    return "".join(out)


def swapped_text(text, table):
    words = text.split(" ")
    changed = [swap_word(w, table, random.choice([0.3, 0.5, 0.7])) if random.random() < 0.8 else w for w in words]
    if changed == words:
        changed[0] = swap_word(words[0], table, 0.5)
    return " ".join(changed)


def mash_word(scripts, length):
    return "".join(random.choice(MASH_LETTERS[random.choice(scripts)]) for _ in range(length))


def leet_word(length):
    letters = "abcdefghijklmnopqrstuvwxyz"
    return "".join(random.choice("0123456789" if random.random() < 0.4 else letters) for _ in range(length))


rows = []


def add(text, label, category):
    rows.append({"text": text, "label": label, "source": SOURCE, "category": category})


for script, table in LOOKALIKES.items():
    for base in BASES:
        text = swapped_text(base, table)
        if text != base:
            add(text[0].upper() + text[1:] if random.random() < 0.5 else text, 1, f"gibberish_mixed_{script}_sentence")
    for word in random.sample(SINGLE_WORDS, 12):
        mixed = swap_word(word, table, 0.5)
        if mixed != word:
            add(mixed, 1, f"gibberish_mixed_{script}_word")
# Letters of two or three scripts mashed inside each word.
for _ in range(60):
    scripts = random.sample(list(MASH_LETTERS), random.choice([2, 3]))
    add(" ".join(mash_word(scripts, random.randint(4, 9)) for _ in range(random.randint(1, 6))), 1, "gibberish_homoglyph_mash")
# Letters and digits mashed: not a word read in leetspeak, nothing read at all.
for _ in range(60):
    add(" ".join(leet_word(random.randint(4, 10)) for _ in range(random.randint(1, 6))), 1, "gibberish_leet_mash")

# Natural text that mixes languages or scripts between words, written for this file.
NATURAL = {
    "natural_code_switching": [
        "Ich habe heute ein meeting mit dem ganzen team",
        "On se voit au coworking après le lunch",
        "Vamos a hacer un brainstorming para el nuevo proyecto",
        "Я купил новый iPhone вчера вечером",
        "Мы задеплоили фикс на staging сервер",
        "Скинь мне ссылку на Google Docs",
        "Πάμε για coffee αύριο το πρωί;",
        "Το laptop μου δεν ανοίγει από χθες",
        "אני עובד ב Google כבר שלוש שנים",
        "שלחתי לך את ה PDF במייל",
        "मुझे यह movie बहुत पसंद आई",
        "कल office में meeting है",
        "أرسلت لك الملف على WhatsApp",
        "Հանդիպումը կլինի Zoom-ով վաղը",
        "Ես օգտագործում եմ Python աշխատանքում",
        "Bugün ofiste deadline var, çok yoğunum",
        "Chúng ta họp online lúc 3 giờ chiều nhé",
        "Jutro mam call z klientem z Berlina",
        "Ik heb de slides al in de gedeelde map gezet",
        "Domani ho una call con il team di Milano",
        "今天的meeting改到下午三点",
        "このPDFをチェックしてください",
        "Saya sudah upload file-nya ke Google Drive",
        "Yaar kal ka plan cancel ho gaya, sorry",
        "Bhai, weekend pe movie dekhne chalein?",
        "Ok, je t'envoie le draft ce soir",
        "Das ist echt nice, danke dir",
        "Sí, lo vi en Netflix anoche, está buenísimo",
        "Все норм, просто deadline горит",
        "Ну это такой soft skill, его сложно измерить",
        "Θα σου στείλω το link στο Viber",
        "Я читаю Harry Potter на английском",
        "Он работает в Microsoft в Дублине",
        "Ο Νίκος δουλεύει στη Siemens στο Μόναχο",
        "Mon fils joue à Minecraft tous les soirs",
        "Der Laptop hat nur 8 GB RAM, das reicht nicht",
        "Kupiłem nowy smartfon na Black Friday",
        "Estou fazendo home office esta semana",
        "Ceci est un quick fix en attendant la v2",
        "Моя сестра живёт в New York уже пять лет",
    ],
    "natural_transliteration": [
        "Privet, kak dela? Vsyo khorosho, spasibo",
        "Spasibo bolshoe za pomoshch",
        "Do svidaniya, uvidimsya zavtra",
        "Kalimera, ti kaneis simera?",
        "Efharisto poli, kalo taxidi",
        "Shalom, ma nishma? Hakol beseder",
        "Toda raba, layla tov",
        "Namaste, aap kaise hain?",
        "Mujhe chai bahut pasand hai",
        "Marhaba, kayf halak? Ana bikhair",
        "Shukran jazilan, ma'a salama",
        "Barev dzez, inchpes eq?",
        "Shnorhakalutyun, lav em",
        "Konnichiwa, ogenki desu ka?",
        "Arigatou gozaimasu, mata ashita",
        "Annyeonghaseyo, jal jinaeseyo?",
        "Ni hao, ni chi fan le ma?",
        "Xie xie, zai jian",
        "Sawasdee krub, sabai dee mai?",
        "Zdravstvuyte, menya zovut Olga",
        "Ya ne govoryu po-russki",
        "Gamarjoba, rogor khar?",
        "Salam aleykum, necesen?",
        "Dobryi den, yak spravy?",
        "Selamat pagi, apa kabar?",
    ],
    "natural_names": [
        "Fyodor Dostoevsky and Pyotr Ilyich Tchaikovsky",
        "Zbigniew Brzęczyszczykiewicz lives in Chrząszczyżewoszyce",
        "Nguyễn Thị Minh Khai Street in Ho Chi Minh City",
        "Tsitsipas beat Mkhitaryan's cousin in Thessaloniki",
        "Владимир Набоков wrote Lolita in English",
        "Αριστοτέλης Ωνάσης and Maria Callas",
        "Shevchenko played for Dynamo Kyiv and AC Milan",
        "Khachaturian composed the Sabre Dance",
        "Srinivasa Ramanujan worked with G. H. Hardy",
        "Przemyśl, Szczecin and Łódź are cities in Poland",
        "Llanfairpwllgwyngyll is a village in Wales",
        "Ouagadougou is the capital of Burkina Faso",
        "Krzysztof Kieślowski directed Three Colours",
        "Tchaikovsky, Rachmaninoff and Shostakovich",
        "Yevgeny Yevtushenko read his poems in Tbilisi",
        "Dr. Oluwaseun Adebayo-Okonkwo joined the board",
        "Mxolisi Nkosi and Thandiwe Dlamini won the prize",
        "Aung San Suu Kyi and U Thant",
        "Siobhán Ní Bhriain from Dún Laoghaire",
        "Eyjafjallajökull erupted in 2010",
    ],
    "natural_technical_tokens": [
        "Compute the SHA256 of the file and compare it with the manifest",
        "Build the x86_64 and arm64 images with Docker",
        "The page is served as UTF-8 over HTTP/2",
        "Give the container an IPv6 address on eth0",
        "The particles measure about 10 μm across",
        "A temperature difference ΔT of 5 K is enough",
        "Reject the null hypothesis when p < α = 0.05",
        "The β-coefficient of the stock is 1.2",
        "Water is H2O and table salt is NaCl",
        "We run k8s on three nodes with i18n and a11y checks",
        "Deploy to AWS EC2 and store backups in S3",
        "Call gpt-4o-mini with temperature 0.2",
        "The COVID-19 vaccine needs two doses",
        "Use OAuth2 with PKCE for the mobile app",
        "The resistor is 4.7 kΩ and the capacitor 100 nF",
        "Set LD_LIBRARY_PATH before running ./configure",
        "The commit 3f9a2c7 fixed the regression in v1.4.2",
        "Stream the 4K video with H.265 at 60 fps",
        "The MP3 and FLAC files are in ~/Music",
        "An angle of 30° has sin θ = 0.5",
        "The enzyme works at pH 7.4 and 37 °C",
        "Use Base64 for the PNG thumbnail",
        "The M2 MacBook has 16 GB of RAM",
        "Set the TTL to 3600 and the MTU to 1500",
        "π is about 3.14159 and e about 2.71828",
    ],
}
for category, texts in NATURAL.items():
    for text in texts:
        add(text, 0, category)
# Leetspeak a reader reads: real words in leet, inside a sentence.
for text in [
    "n00b question: how do I install python?",
    "that was an 3pic w1n, gg",
    "l33t h4x0r skills right there",
    "my gamertag is xX_sn1per_Xx",
    "h3ll0 w0rld is the first program",
    "c u l8r, gr8 game today",
    "1337 speak was popular on forums",
    "pwn3d by the final boss again",
    "w00t we made it to the finals",
    "th4nk5 for the h3lp, m8",
]:
    add(text, 0, "natural_leetspeak_words")

for row in rows:
    print(json.dumps(row, ensure_ascii=False))
